package dev.tenure.bench;

import glide.api.GlideClient;
import glide.api.models.configuration.GlideClientConfiguration;
import glide.api.models.configuration.NodeAddress;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * What a script reply's shape costs GLIDE's client: one thread calls EVALSHA of two scripts that answer {@code n}
 * operations each, as three values per operation (Tenure's lease script: code, pttl, holder) or packed into one string
 * per operation, and prints this process's CPU and the wall time per call. Three rounds, 1 and 16 operations per call.
 *
 * <pre>
 * valkey-server --port 7411 --save "" --appendonly no &amp;
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/bench.classpath)" dev.tenure.bench.GlideReplyProbe 7411
 * </pre>
 */
public final class GlideReplyProbe {

    private static final String THREE =
            "local o = {} for i = 1, tonumber(ARGV[1]) do o[#o+1] = 2; o[#o+1] = 12345; o[#o+1] = '' end return o";
    private static final String PACKED =
            "local o = {} for i = 1, tonumber(ARGV[1]) do o[#o+1] = '2:12345:' end return o";
    private static final int CALLS = 20_000;
    private static final int WARMUP = 3_000;

    private GlideReplyProbe() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: GlideReplyProbe <port of a valkey-server on 127.0.0.1>");
            System.exit(2);
        }
        GlideSupport.quietLogs();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (GlideClient c = GlideClient.createClient(GlideClientConfiguration.builder()
                        .address(NodeAddress.builder()
                                .host("127.0.0.1")
                                .port(Integer.parseInt(args[0]))
                                .build())
                        .requestTimeout(2000)
                        .build())
                .get()) {
            String[][] scripts = {{"three values", load(c, THREE)}, {"packed", load(c, PACKED)}};
            System.out.println("round  ops/call  reply         client CPU us/call  wall us/call");
            for (int round = 1; round <= 3; round++) {
                for (String ops : new String[] {"1", "16"}) {
                    for (String[] s : scripts) {
                        String[] cmd = {"EVALSHA", s[1], "0", ops};
                        for (int i = 0; i < WARMUP; i++) {
                            c.customCommand(cmd).get();
                        }
                        long cpu = os.getProcessCpuTime();
                        long wall = System.nanoTime();
                        for (int i = 0; i < CALLS; i++) {
                            c.customCommand(cmd).get();
                        }
                        System.out.printf(
                                Locale.ROOT,
                                "%5d  %8s  %-12s  %18.1f  %12.1f%n",
                                round,
                                ops,
                                s[0],
                                (os.getProcessCpuTime() - cpu) / 1e3 / CALLS,
                                (System.nanoTime() - wall) / 1e3 / CALLS);
                    }
                }
            }
        }
    }

    private static String load(GlideClient c, String script) throws Exception {
        return (String) c.customCommand(new String[] {"SCRIPT", "LOAD", script}).get();
    }
}
