package dev.tenure.console;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code prune --older-than <duration>}: retention of {@code job_run}, in bounded batches ({@link Retention}). */
@Command(
        name = "prune",
        description = "Delete finished runs that started before now - DURATION (at least 1h), job by "
                + "job in batches. A pruned fire runs again if it ever fires again.")
final class PruneCommand extends CliCommand {

    @Option(
            names = "--older-than",
            required = true,
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "e.g. 30d, 12h, 90m, or ISO-8601 (P30D)")
    Duration olderThan;

    @Option(names = "--batch", defaultValue = "5000", description = "rows per DELETE (default: ${DEFAULT-VALUE})")
    int batch;

    @Override
    Output execute(Context ctx) {
        Retention.Pruned p = new Retention(ctx.dataSource(), ctx.schema(), ctx.queries()).prune(olderThan, batch);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("cutOff", p.cutOff());
        json.put("deleted", p.deleted());
        json.put("jobs", p.jobs());
        json.put("batches", p.batches());
        return new Output(
                json,
                "deleted " + p.deleted() + " finished runs started before " + Html.time(p.cutOff()) + " (" + p.jobs()
                        + " jobs, " + p.batches() + " batches of at most " + batch + ")" + System.lineSeparator());
    }
}
