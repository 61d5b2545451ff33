package dev.tenure.examples;

/**
 * The main of {@link DatabaseOnlyIT}'s child JVM: says whether Valkey GLIDE can be loaded on its class path, then runs
 * the database-only {@link CoordinatedJobExample}.
 */
public final class WithoutGlide {

    private WithoutGlide() {}

    public static void main(String[] args) throws Exception {
        try {
            Class.forName("glide.api.GlideClient");
            System.out.println("glide.api.GlideClient: loadable");
        } catch (ClassNotFoundException e) {
            System.out.println("glide.api.GlideClient: not loadable");
        }
        CoordinatedJobExample.main(args);
    }
}
