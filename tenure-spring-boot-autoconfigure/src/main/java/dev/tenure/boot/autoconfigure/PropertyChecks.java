package dev.tenure.boot.autoconfigure;

import static dev.tenure.boot.TenureConfigurationException.property;

/** Runs a core builder's own check of one value and reports a failure under the property's name. */
final class PropertyChecks {

    private PropertyChecks() {}

    /** Runs {@code setter}; its {@link IllegalArgumentException} becomes a configuration error naming {@code property}. */
    static void check(String property, Object value, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw property(property, value, e.getMessage());
        }
    }
}
