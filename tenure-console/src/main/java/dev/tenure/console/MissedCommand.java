package dev.tenure.console;

import dev.tenure.db.MissedSummary;
import dev.tenure.db.TenureAdmin;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code missed [--job J] [--since D] [--limit N]}: the fires the sweeper recorded MISSED, newest first, and why; a
 * summary record of many fires is one line ({@code 11460 fires <first>..<last> missed}).
 */
@Command(
        name = "missed",
        description = "Fires the sweeper recorded MISSED (due, and never run), newest first: job, "
                + "fire, when it was recorded, by which sweeper, and why.")
final class MissedCommand extends CliCommand {

    @Option(names = "--job", paramLabel = "JOB", description = "only this job's fires (default: every job)")
    String job;

    @Option(
            names = "--since",
            defaultValue = "24h",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "recorded within this long before now (default: ${DEFAULT-VALUE}), e.g. 90m, 7d, PT1H")
    Duration since;

    @Option(
            names = "--limit",
            defaultValue = "100",
            description = "at most this many, 1..10000 (default: ${DEFAULT-VALUE})")
    int limit;

    @Override
    Output execute(Context ctx) {
        int max = limit("--limit", limit, 10_000);
        List<TenureAdmin.MissedFire> fires = ctx.admin().missedFires(job, since, max);
        TextTable t = new TextTable("JOB", "FIRE", "RECORDED", "SWEEPER", "REASON");
        for (TenureAdmin.MissedFire m : fires) {
            t.row(
                    m.jobKey(),
                    m.summary().map(MissedSummary::line).orElse(m.fireKey()),
                    Html.time(m.recordedAt()),
                    m.sweeper(),
                    m.reason());
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("job", job);
        json.put("sinceMillis", since);
        json.put("missed", fires.stream().map(CliRows::missed).toList());
        String none =
                "no fire recorded MISSED in the last " + Html.duration(since) + (job == null ? "" : " for " + job);
        return new Output(
                json,
                t.render(none)
                        + (fires.size() == max
                                ? "(the newest " + max + "; --limit or --since " + "for more)" + System.lineSeparator()
                                : ""));
    }
}
