import org.jspecify.annotations.NullMarked;

/**
 * Tenure's Valkey store over Valkey GLIDE: {@link dev.tenure.Tenure} finds it as a
 * {@link dev.tenure.spi.ValkeyBackend}. Exports {@code dev.tenure.valkey} for {@code ValkeyFunctions}, the function
 * library tools an administrator runs; applications reach the store through {@code Tenure}.
 */
@NullMarked
module dev.tenure.valkey {
    requires transitive org.jspecify;
    requires transitive dev.tenure.core;
    requires org.slf4j;
    // GLIDE's jar has no module name of its own: this is the name Java derives from
    // valkey-glide-<version>-<classifier>.jar
    requires valkey.glide;

    exports dev.tenure.valkey;

    provides dev.tenure.spi.ValkeyBackend with
            dev.tenure.valkey.GlideBackend;
}
