package dev.tenure;

import dev.tenure.spi.DatabaseBackend;
import dev.tenure.spi.ValkeyBackend;
import java.util.Iterator;
import java.util.ServiceLoader;

/** Finds the store modules on the class path with {@link ServiceLoader}; a missing one is a clear error. */
final class Backends {

    private Backends() {}

    static DatabaseBackend database() {
        return first(
                DatabaseBackend.class, "the database store is module dev.tenure:tenure-db: add it as a dependency");
    }

    static ValkeyBackend valkey() {
        return first(
                ValkeyBackend.class,
                "the Valkey store is module dev.tenure:tenure-valkey: add it, and "
                        + "io.valkey:valkey-glide with your platform's classifier (README, 'Modules'), or leave out valkey(...) "
                        + "for the database mode");
    }

    private static <T> T first(Class<T> type, String hint) {
        Iterator<T> found =
                ServiceLoader.load(type, Backends.class.getClassLoader()).iterator();
        if (!found.hasNext()) {
            throw new IllegalStateException("no " + type.getSimpleName() + " on the class path: " + hint);
        }
        return found.next();
    }
}
