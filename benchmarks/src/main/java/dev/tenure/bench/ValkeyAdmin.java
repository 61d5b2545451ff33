package dev.tenure.bench;

import glide.api.GlideClient;
import glide.api.models.commands.InfoOptions;
import glide.api.models.configuration.GlideClientConfiguration;
import glide.api.models.configuration.NodeAddress;
import java.util.Map;
import java.util.TreeMap;

/** A separate GLIDE client for server-side observations: INFO commandstats, DBSIZE, INFO server. */
public final class ValkeyAdmin implements AutoCloseable {

    private final GlideClient client;

    ValkeyAdmin(BenchConfig cfg) throws Exception {
        this(cfg.host(), cfg.port());
    }

    public ValkeyAdmin(String host, int port) throws Exception {
        GlideSupport.quietLogs();
        client = GlideClient.createClient(GlideClientConfiguration.builder()
                        .address(NodeAddress.builder().host(host).port(port).build())
                        .requestTimeout(5000)
                        .clientName("bench-admin")
                        .build())
                .get();
    }

    long dbsize() throws Exception {
        return client.dbsize().get();
    }

    void del(String key) throws Exception {
        client.del(new String[] {key}).get();
    }

    /** Number of keys matching a glob pattern (SCAN, so it does not block the server). */
    long countKeys(String pattern) throws Exception {
        String cursor = "0";
        long n = 0;
        do {
            Object[] reply =
                    (Object[]) client.customCommand(new String[] {"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"})
                            .get();
            cursor = reply[0].toString();
            n += ((Object[]) reply[1]).length;
        } while (!cursor.equals("0"));
        return n;
    }

    public String serverField(String field) throws Exception {
        String info = client.info(new InfoOptions.Section[] {InfoOptions.Section.SERVER})
                .get();
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return "?";
    }

    /** valkey-server's CPU seconds so far (user + system, all its threads; INFO cpu). */
    public double serverCpuSeconds() throws Exception {
        String info =
                client.info(new InfoOptions.Section[] {InfoOptions.Section.CPU}).get();
        double sum = 0;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                sum += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return sum;
    }

    /** Command name to cumulative calls (commands run inside Lua scripts are counted too). */
    public Map<String, Long> commandCalls() throws Exception {
        String info = client.info(new InfoOptions.Section[] {InfoOptions.Section.COMMANDSTATS})
                .get();
        Map<String, Long> calls = new TreeMap<>();
        for (String line : info.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            String name = line.substring("cmdstat_".length(), colon);
            for (String kv : line.substring(colon + 1).split(",")) {
                if (kv.startsWith("calls=")) {
                    calls.put(name, Long.parseLong(kv.substring("calls=".length())));
                }
            }
        }
        return calls;
    }

    /** after - before, dropping zero rows and this client's own INFO call between the two snapshots. */
    public static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new TreeMap<>();
        for (Map.Entry<String, Long> e : after.entrySet()) {
            long v = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (e.getKey().equals("info")) {
                v = 0; // the benchmark's own observations (commandstats, cpu) between the two snapshots
            }
            if (v != 0) {
                d.put(e.getKey(), v);
            }
        }
        return d;
    }

    public static long total(Map<String, Long> delta) {
        return delta.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Calls of eval/evalsha/fcall (one round trip each, whatever they run inside). */
    public static long scripts(Map<String, Long> delta) {
        long n = 0;
        for (Map.Entry<String, Long> e : delta.entrySet()) {
            String k = e.getKey();
            if (k.startsWith("eval") || k.startsWith("fcall")) {
                n += e.getValue();
            }
        }
        return n;
    }

    public static String describe(Map<String, Long> delta) {
        StringBuilder sb = new StringBuilder();
        delta.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .forEach(e -> sb.append(sb.length() == 0 ? "" : " ")
                        .append(e.getKey())
                        .append('=')
                        .append(e.getValue()));
        return sb.toString();
    }

    @Override
    public void close() throws Exception {
        client.close();
    }
}
