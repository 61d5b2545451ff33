package dev.tenure.boot.autoconfigure;

import dev.tenure.boot.TenureConfigurationException;

/** For tests outside this package: the property a start-up failure names, found as Boot's failure analyzer finds it. */
public final class TenureConfigurationFailureAnalyzerAccess {

    private TenureConfigurationFailureAnalyzerAccess() {
    }

    /** The {@link TenureConfigurationException#where()} in {@code failure}'s causes, or null. */
    public static String where(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof TenureConfigurationException e) {
                return e.where();
            }
        }
        return null;
    }
}
