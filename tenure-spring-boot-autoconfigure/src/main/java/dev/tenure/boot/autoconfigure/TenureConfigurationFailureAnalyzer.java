package dev.tenure.boot.autoconfigure;

import dev.tenure.boot.TenureConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link TenureConfigurationException} anywhere in a start-up failure as the property (or method) at fault,
 * what is wrong and what to change, instead of a stack trace.
 */
class TenureConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<TenureConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, TenureConfigurationException cause) {
        return new FailureAnalysis("Tenure is not configured correctly: " + cause.getMessage(), cause.action(), cause);
    }
}
