package dev.tenure.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code --key value} (or {@code --key=value}) options of a benchmark's command line. */
public final class Options {

    private Options() {}

    /**
     * The options in their order, keyed with their dashes ({@code --db}); a key given twice keeps its last value.
     *
     * @throws IllegalArgumentException on {@code --help} or {@code -h} (message "help"), a word that is not an option,
     *                                  or an option without a value
     */
    public static Map<String, String> parse(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String k = args[i];
            if (k.equals("--help") || k.equals("-h")) {
                throw new IllegalArgumentException("help");
            }
            if (!k.startsWith("--")) {
                throw new IllegalArgumentException("not an option: " + k);
            }
            int eq = k.indexOf('=');
            if (eq > 0) {
                options.put(k.substring(0, eq), k.substring(eq + 1));
            } else if (i + 1 < args.length) {
                options.put(k, args[++i]);
            } else {
                throw new IllegalArgumentException("missing value for " + k);
            }
        }
        return options;
    }
}
