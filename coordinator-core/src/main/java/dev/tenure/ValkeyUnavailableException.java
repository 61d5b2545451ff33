package dev.tenure;

/**
 * Valkey is required ({@link Tenure.Builder#requireValkey}) and, when Tenure was built, refused it (a wrong password,
 * an ACL that does not let it in) or could not be reached. Nothing was started. {@link #problem()} says what the server
 * answered, in one line that names it.
 */
public class ValkeyUnavailableException extends LeaseStoreUnavailableException {

    private final String problem;

    public ValkeyUnavailableException(String problem) {
        super(
                "Valkey is required (Tenure.Builder.requireValkey) but does not answer Tenure: " + problem
                        + ". Fix the address or the credentials, or leave Valkey optional to start with the database fallback",
                null,
                null);
        this.problem = problem;
    }

    /** What is wrong, in one line naming the server, e.g. {@code "Valkey 10.0.0.5:6379: WRONGPASS: ..."}. */
    public String problem() {
        return problem;
    }
}
