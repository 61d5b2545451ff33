package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;
import dev.tenure.spi.LeaseStore;
import dev.tenure.spi.ValkeyBackend;

/**
 * The Valkey store for {@link dev.tenure.Tenure} (registered in {@code META-INF/services/dev.tenure.spi.ValkeyBackend}):
 * {@link ValkeyLeaseStore#create}, after checking that Valkey GLIDE and its native library for this platform load.
 *
 * <p>Public only because the {@link java.util.ServiceLoader} needs it; applications use {@link dev.tenure.Tenure}.
 */
public final class GlideBackend implements ValkeyBackend {

    /** The platforms Valkey GLIDE 2.3.1 publishes a jar for (Maven classifiers). */
    static final String CLASSIFIERS = "linux-x86_64, linux-aarch_64, linux_musl-x86_64, linux_musl-aarch_64, "
            + "osx-x86_64, osx-aarch_64, windows-x86_64";

    @Override
    public LeaseStore open(ValkeyConfig config) {
        requireGlide();
        return ValkeyLeaseStore.create(config);
    }

    /**
     * Fails with a message that says what to add unless GLIDE's classes and its native library load here.
     *
     * @throws IllegalStateException naming the dependency and the classifiers
     */
    static void requireGlide() {
        try {
            Class.forName("glide.api.GlideClient", true, GlideBackend.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(
                    "Valkey GLIDE cannot be loaded (" + e + "): add io.valkey:valkey-glide:2.3.1 "
                            + "with the classifier of this platform (os.name=" + System.getProperty("os.name")
                            + ", os.arch="
                            + System.getProperty("os.arch") + "; one of " + CLASSIFIERS + "), e.g. <classifier>"
                            + "${os.detected.classifier}</classifier> with the os-maven-plugin build extension",
                    e);
        }
    }
}
