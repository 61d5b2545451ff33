package dev.tenure.examples.invoicing;

import dev.tenure.console.ConsoleMain;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.Timing;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;

/**
 * What an on-call engineer reads from Tenure's console and CLI, fetched as they would: the console's pages over HTTP
 * and in a headless Chromium (its DOM after the scripts ran, and a screenshot), the CLI's output as it prints it. Reads
 * the few parts {@link FleetDownTourIT} checks: a job's row in the job list, the job page's overdue line and buckets.
 */
final class ConsoleReading {

    private static final List<String> CHROMIUM = List.of("/usr/bin/chromium", "/usr/bin/chromium-browser");
    private static final Pattern SINCE =
            Pattern.compile("since (\\d{4}-\\d\\d-\\d\\d) (\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z)");
    private static final Pattern BUCKET = Pattern.compile("<li data-bucket=\"([a-z-]+)\"[^>]*><b>(\\d+)</b>");
    private static final Pattern FIRES = Pattern.compile("<span class=\"fires\">(\\d+)</span>");

    private ConsoleReading() {}

    /**
     * A count as the console and the CLI show it: {@code 9} or {@code 1+} (a lower bound), with since when (null when
     * none is overdue).
     */
    record Shown(long count, boolean exact, Instant since, String text) {
        static Shown parse(String text) {
            Matcher n = Pattern.compile("^(\\d+)(\\+?)").matcher(text.strip());
            if (!n.find()) {
                throw new AssertionError("not an overdue count: '" + text + "'");
            }
            Matcher s = SINCE.matcher(text);
            Instant since = s.find() ? Instant.parse(s.group(1) + "T" + s.group(2)) : null;
            return new Shown(Long.parseLong(n.group(1)), n.group(2).isEmpty(), since, text);
        }
    }

    /** A job's row of the job list: the row's class, the overdue cell's text and class. */
    record JobRow(String rowClass, String overdue, String overdueClass) {}

    /** The job list's row of {@code job}, from the page's HTML. */
    static JobRow jobRow(String html, String job) {
        Matcher tr = Pattern.compile(
                        "<tr class=\"([^\"]*)\"><td><a href=\"[^\"]*\">" + Pattern.quote(job) + "</a></td>(.*?)</tr>")
                .matcher(html);
        if (!tr.find()) {
            throw new AssertionError("no row of " + job + " in the job list: " + html);
        }
        List<String[]> cells = new ArrayList<>();
        Matcher td = Pattern.compile("<td(?: class=\"([^\"]*)\")?>(.*?)</td>").matcher(tr.group(2));
        while (td.find()) {
            cells.add(new String[] {td.group(1) == null ? "" : td.group(1), td.group(2)});
        }
        String[] last = cells.get(cells.size() - 1); // the overdue column is the last one
        return new JobRow(tr.group(1), last[1], last[0]);
    }

    /** The job page's "overdue now" line: its text and class; empty when the page has none. */
    static Optional<String[]> overdueNow(String html) {
        Matcher m = Pattern.compile("<dd class=\"(overdue[^\"]*)\">(.*?)</dd>").matcher(html);
        return m.find() ? Optional.of(new String[] {m.group(2), m.group(1)}) : Optional.empty();
    }

    /** The job page's summary: its fires ({@code "fires"}) and each bucket's count, in the page's order. */
    static Map<String, Long> buckets(String html) {
        Map<String, Long> out = new LinkedHashMap<>();
        Matcher f = FIRES.matcher(html);
        if (!f.find()) {
            throw new AssertionError("no summary of fires on the job page: " + html);
        }
        out.put("fires", Long.parseLong(f.group(1)));
        Matcher b = BUCKET.matcher(html);
        while (b.find()) {
            out.put(b.group(1), Long.parseLong(b.group(2)));
        }
        return out;
    }

    /** GET {@code url}; fails unless 200. */
    static String get(String url) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(Timing.scaled(Duration.ofSeconds(5)))
                .build();
        HttpResponse<String> r = client.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Timing.scaled(Duration.ofSeconds(20)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new AssertionError("GET " + url + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    /** {@code tenure-console <args> --jdbc-url … --user … [--password-file …]}: its exit code, stdout and stderr. */
    static String[] cli(PostgresDatabase db, String... args) throws IOException {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--jdbc-url", db.jdbcUrl()));
        if (db.username() != null) {
            all.addAll(List.of("--user", db.username()));
        }
        Path password = null;
        if (db.password() != null) {
            password = Files.createTempFile("tenure-console-pw", ".txt");
            Files.writeString(password, db.password());
            all.addAll(List.of("--password-file", password.toString()));
        }
        try {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int exit = ConsoleMain.run(new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
            return new String[] {String.valueOf(exit), out.toString(), err.toString()};
        } finally {
            if (password != null) {
                Files.deleteIfExists(password);
            }
        }
    }

    /** The page's DOM after its scripts ran, in a headless Chromium. */
    static String dom(String url) throws IOException, InterruptedException {
        return chromium("--dump-dom", url);
    }

    /** Saves a full-width PNG of the page, and returns how many of its pixels are the console's alert red. */
    static long screenshot(String url, Path png) throws IOException, InterruptedException {
        Files.createDirectories(png.toAbsolutePath().getParent());
        chromium("--screenshot=" + png.toAbsolutePath(), "--window-size=1800,1000", "--hide-scrollbars", url);
        BufferedImage image = ImageIO.read(png.toFile());
        if (image == null) {
            throw new AssertionError("Chromium wrote no screenshot at " + png);
        }
        long red = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y);
                // td.alert and dd.alert: #b4341c, rgb(180, 52, 28); glyph edges blend it with the background
                if (near((rgb >> 16) & 0xff, 180) && near((rgb >> 8) & 0xff, 52) && near(rgb & 0xff, 28)) {
                    red++;
                }
            }
        }
        return red;
    }

    private static boolean near(int value, int target) {
        return Math.abs(value - target) <= 24;
    }

    private static String chromium(String... args) throws IOException, InterruptedException {
        String binary = CHROMIUM.stream()
                .filter(c -> Files.isExecutable(Path.of(c)))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(
                        "no Chromium at " + CHROMIUM + ": install Debian's package (apt-get install -y chromium)"));
        Path profile = Files.createTempDirectory("tenure-chromium-");
        List<String> cmd = new ArrayList<>(List.of(
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--virtual-time-budget=500",
                "--user-data-dir=" + profile));
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
            return Files.readString(out);
        } finally {
            p.destroyForcibly();
            try (var files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(f -> f.toFile().delete());
            }
        }
    }
}
