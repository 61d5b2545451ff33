package dev.tenure.console;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A run's trace id as a link into the user's trace UI, from a URL template such as
 * {@code https://tempo.example/trace/{traceId}} ({@link TenureConsole.Builder#traceLink}, {@code --trace-link}). Only
 * trace ids of 16 or 32 hex digits are linked. Immutable.
 */
final class TraceLink {

    /** What the template's trace id stands for. */
    static final String PLACEHOLDER = "{traceId}";

    static final TraceLink NONE = new TraceLink(null);
    private static final Pattern TRACE_ID = Pattern.compile("[0-9a-f]{16}|[0-9a-f]{32}");

    private final String template;

    private TraceLink(String template) {
        this.template = template;
    }

    /**
     * The link of {@code template}; {@link #NONE} for null or blank.
     *
     * @throws IllegalArgumentException unless it is an http(s) URL with {@value #PLACEHOLDER}
     */
    static TraceLink of(String template) {
        if (template == null || template.isBlank()) {
            return NONE;
        }
        if (!template.contains(PLACEHOLDER) || !(template.startsWith("https://") || template.startsWith("http://"))) {
            throw new IllegalArgumentException("the trace link must be an http(s) URL with " + PLACEHOLDER
                    + " where the trace id goes, e.g. https://tempo.example/trace/" + PLACEHOLDER + " (got " + template
                    + ")");
        }
        return new TraceLink(template);
    }

    /** The URL of {@code traceId}'s trace; empty without a template or for an id that is not hex. */
    Optional<String> url(String traceId) {
        return template == null || traceId == null || !TRACE_ID.matcher(traceId).matches()
                ? Optional.empty()
                : Optional.of(template.replace(PLACEHOLDER, traceId));
    }

    /** The trace cell of a run's row: the id, linked to its trace when there is a template. */
    String cell(String traceId) {
        if (traceId == null) {
            return "<td></td>";
        }
        return url(traceId)
                .map(u -> "<td class=\"trace\"><a href=\"" + Html.esc(u) + "\" title=\"" + Html.esc(traceId)
                        + "\" target=\"_blank\" rel=\"noopener\">" + Html.esc(traceId) + "</a></td>")
                .orElseGet(() -> Layout.td(traceId, "trace"));
    }
}
