package dev.tenure;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.handler.TracingObservationHandler;
import org.jspecify.annotations.Nullable;

/**
 * The trace id of an observation that a Micrometer Tracing handler turned into a span: read only when
 * micrometer-tracing is on the class path (it is optional), else none.
 */
final class TraceIds {

    private static final boolean TRACING = present("io.micrometer.tracing.handler.TracingObservationHandler");

    private TraceIds() {}

    /** The trace id of {@code context}'s span; null when it has none, or only an invalid (all-zero) one. */
    static @Nullable String of(Observation.Context context) {
        return TRACING ? Tracing.traceId(context) : null;
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, TraceIds.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Loaded only when micrometer-tracing is present. */
    private static final class Tracing {
        static @Nullable String traceId(Observation.Context context) {
            TracingObservationHandler.TracingContext tc = context.get(TracingObservationHandler.TracingContext.class);
            if (tc == null || tc.getSpan() == null) {
                return null;
            }
            String id = tc.getSpan().context().traceId();
            return id == null || id.isBlank() || id.chars().allMatch(c -> c == '0') ? null : id;
        }
    }
}
