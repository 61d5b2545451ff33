package dev.tenure.bench;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code valkey-benchmark -t set -q} against the same server: what the server does with plain SETs ("server limit"). */
final class Baseline {

    record Result(int clients, double requestsPerSecond, double p50Millis, String error) {}

    private static final Pattern LINE = Pattern.compile("SET: ([0-9.]+) requests per second(?:, p50=([0-9.]+) msec)?");

    private Baseline() {}

    static List<Result> run(BenchConfig cfg, List<Integer> clients) {
        List<Result> out = new ArrayList<>();
        for (int c : clients) {
            out.add(runOne(cfg, c));
        }
        return out;
    }

    static Result runOne(BenchConfig cfg, int clients) {
        List<String> cmd = List.of(
                cfg.valkeyBenchmark,
                "-h",
                cfg.host(),
                "-p",
                String.valueOf(cfg.port()),
                "-t",
                "set",
                "-n",
                String.valueOf(cfg.baselineRequests),
                "-c",
                String.valueOf(clients),
                "-q");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String text;
            try (InputStream in = p.getInputStream()) {
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                in.transferTo(buf);
                text = buf.toString(StandardCharsets.UTF_8);
            }
            int rc = p.waitFor();
            Result last = null;
            for (String line : text.split("[\r\n]+")) {
                Matcher m = LINE.matcher(line.trim());
                if (m.find()) {
                    last = new Result(
                            clients,
                            Double.parseDouble(m.group(1)),
                            m.group(2) == null ? Double.NaN : Double.parseDouble(m.group(2)),
                            null);
                }
            }
            if (last == null) {
                return new Result(clients, Double.NaN, Double.NaN, "rc=" + rc + " output: " + text.strip());
            }
            return last;
        } catch (Exception e) {
            return new Result(clients, Double.NaN, Double.NaN, e.toString());
        }
    }
}
