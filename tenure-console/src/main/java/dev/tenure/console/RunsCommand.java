package dev.tenure.console;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** {@code runs JOB}: one page of a job's fires, newest first; {@code --before} continues where a page ended. */
@Command(name = "runs", description = "A job's fires, newest first: fire key, node, epoch, status, duration, rotations.")
final class RunsCommand extends CliCommand {

    @Parameters(index = "0", paramLabel = "JOB", description = "the job key")
    String job;

    @Option(names = "--limit", defaultValue = "50", description = "runs per page, 1..1000 (default: ${DEFAULT-VALUE})")
    int limit;

    @Option(names = "--before", paramLabel = "CURSOR", description = "continue after a page (its 'next' cursor)")
    String before;

    @Override
    Output execute(Context ctx) {
        Views.RunPage page = ctx.queries().runs(job, Optional.ofNullable(before).map(Cursor::parse),
                limit("--limit", limit, 1000));
        TextTable t = new TextTable("FIRE", "NODE", "EPOCH", "STATUS", "DURATION", "ATTEMPT", "STARTED", "WHAT HAPPENED");
        for (Views.Run r : page.runs()) {
            t.row(r.fireKey(), r.node(), r.epoch(), r.status(), Html.duration(r.duration()), r.attempt(),
                    Html.time(r.startedAt()), JobPage.story(r));
        }
        String next = page.next().map(Cursor::encode).orElse(null);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("job", job);
        json.put("runs", page.runs().stream().map(CliRows::run).toList());
        json.put("next", next);
        return new Output(json, t.render("no runs of " + job) + (next == null ? "" : "next page: --before " + next
                + System.lineSeparator()));
    }
}
