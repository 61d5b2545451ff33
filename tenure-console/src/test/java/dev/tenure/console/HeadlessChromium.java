package dev.tenure.console;

import dev.tenure.testkit.Timing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Chromium, headless, for tests that look at a page as a person would: {@link #dumpDom} (the DOM after the
 * page's scripts ran), {@link #screenshot}, and {@link #open} (a tab to click, type and sign in through the DevTools
 * protocol). Each call is a fresh browser with a fresh profile directory. Fails (never skips) when Chromium is missing,
 * saying what to install.
 */
final class HeadlessChromium {

    private static final List<String> CANDIDATES = List.of("/usr/bin/chromium", "/usr/bin/chromium-browser");
    /** Headless, no sandbox (tests may run as root), and no traffic of its own (updates, sync, QUIC probes). */
    static final List<String> FLAGS = List.of(
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage");

    private final String binary;

    private HeadlessChromium(String binary) {
        this.binary = binary;
    }

    /** @throws IllegalStateException if no Chromium is installed */
    static HeadlessChromium find() {
        String env = System.getenv("TENURE_CHROMIUM");
        for (String c : env != null ? List.of(env) : CANDIDATES) {
            if (Files.isExecutable(Path.of(c))) {
                return new HeadlessChromium(c);
            }
        }
        throw new IllegalStateException("no Chromium at " + CANDIDATES + ": install Debian's package "
                + "(apt-get install -y chromium; scripts/prerequisites.sh does) or set TENURE_CHROMIUM to its path");
    }

    /** A tab of a fresh browser, driven through the DevTools protocol; close it. */
    ChromiumTab open() throws IOException, InterruptedException {
        return ChromiumTab.open(binary);
    }

    /** The page's DOM after load and a short run of its scripts. */
    String dumpDom(String url) throws IOException, InterruptedException {
        return run("--dump-dom", url);
    }

    /** Saves a PNG of the page, {@code width} × {@code height} CSS pixels. */
    void screenshot(String url, Path png, int width, int height) throws IOException, InterruptedException {
        Files.createDirectories(png.getParent());
        run("--screenshot=" + png.toAbsolutePath(), "--window-size=" + width + "," + height, "--hide-scrollbars", url);
        if (!Files.isRegularFile(png) || Files.size(png) < 1000) {
            throw new IllegalStateException("Chromium wrote no screenshot at " + png);
        }
    }

    private String run(String... args) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("tenure-chromium-");
        List<String> cmd = new ArrayList<>(List.of(binary));
        cmd.addAll(FLAGS);
        cmd.addAll(List.of("--virtual-time-budget=3000", "--user-data-dir=" + profile));
        cmd.addAll(List.of(args));
        Path out = profile.resolve("stdout.txt");
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(profile.resolve("stderr.txt").toFile())
                .start();
        try {
            if (!p.waitFor(Timing.scaledMillis(90_000), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("Chromium did not finish within 90 s: " + cmd);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("Chromium exited with " + p.exitValue() + ": "
                        + Files.readString(profile.resolve("stderr.txt")));
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            p.destroyForcibly();
            try (var files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(f -> f.toFile().delete());
            }
        }
    }
}
