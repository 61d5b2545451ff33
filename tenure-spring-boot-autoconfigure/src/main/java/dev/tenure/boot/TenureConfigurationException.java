package dev.tenure.boot;

import dev.tenure.TenureException;

/**
 * Tenure is configured wrongly, found at start-up: a {@code tenure.*} property with a bad value, or a
 * {@link Coordinated} method that cannot be coordinated. The application does not start; the message names the
 * property (or the method), the value and the rule, and {@link #action()} says what to change.
 */
public class TenureConfigurationException extends TenureException {

    private final String where;
    private final String action;

    /**
     * @param where   the property ({@code tenure.lease.ttl}) or method ({@code SettlementJob.settle}) at fault
     * @param problem what is wrong with it, naming the value
     * @param action  what to change
     */
    public TenureConfigurationException(String where, String problem, String action) {
        super(where + ": " + problem, null);
        this.where = where;
        this.action = action;
    }

    /** The property or method at fault. */
    public String where() {
        return where;
    }

    /** What to change. */
    public String action() {
        return action;
    }

    /**
     * A bad property value: {@code property} = {@code value} breaks {@code rule}; the action says to change it.
     *
     * @param rule what a good value looks like, e.g. "at least 10ms"
     */
    public static TenureConfigurationException property(String property, Object value, String rule) {
        return new TenureConfigurationException(
                property,
                "invalid value '" + value + "': " + rule,
                "Change " + property + " in your application properties: " + rule + ".");
    }
}
