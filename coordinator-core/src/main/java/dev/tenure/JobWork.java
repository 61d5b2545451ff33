package dev.tenure;

/** The body of a coordinated job. Whatever it throws becomes a {@link RunOutcome.Status#FAILED} outcome. */
@FunctionalInterface
public interface JobWork<T> {

    T run(JobContext context) throws Exception;
}
