package dev.tenure.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads and groups {@code --name value...} command-line arguments of valkey-server. */
final class ValkeyArgs {

    private ValkeyArgs() {}

    /** The value after {@code --requirepass}, if any (the last one wins, as in valkey-server). */
    static Optional<String> password(List<String> args) {
        String password = null;
        for (int i = 0; i < args.size() - 1; i++) {
            if (args.get(i).equals("--requirepass")) {
                password = args.get(i + 1);
            }
        }
        return Optional.ofNullable(password);
    }

    /** Groups {@code --a x --b y z} into {@code [[a, x], [b, y, z]]}, the shape CONFIG SET takes. */
    static List<List<String>> options(List<String> args) {
        List<List<String>> options = new ArrayList<>();
        for (String arg : args) {
            if (arg.startsWith("--")) {
                options.add(new ArrayList<>(List.of(arg.substring(2))));
            } else if (options.isEmpty()) {
                throw new IllegalArgumentException("valkey-server arguments must start with --name, got: " + args);
            } else {
                options.get(options.size() - 1).add(arg);
            }
        }
        return options;
    }

    /**
     * {@code defaults}, then {@code extraArgs}, then {@code --masterauth} with the {@code --requirepass} password if
     * the caller set a password but no masterauth: replicas must authenticate to their primary.
     */
    static List<String> forReplication(List<String> defaults, List<String> extraArgs) {
        List<String> all = new ArrayList<>(defaults);
        all.addAll(extraArgs);
        Optional<String> password = password(extraArgs);
        if (password.isPresent() && !extraArgs.contains("--masterauth")) {
            all.addAll(List.of("--masterauth", password.get()));
        }
        return all;
    }

    static List<String> concat(List<String> first, String... second) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(second));
        return all;
    }
}
