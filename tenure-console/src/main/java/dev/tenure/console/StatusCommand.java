package dev.tenure.console;

import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code status}: every job and role, who holds it, its epoch, lease time left, last outcome and fires per hour. */
@Command(
        name = "status",
        description = "Jobs and roles: holder, epoch, lease left, last outcome, fires in the last hour.")
final class StatusCommand extends CliCommand {

    @Option(
            names = "--limit",
            defaultValue = "200",
            description = "at most this many jobs, by key (default: ${DEFAULT-VALUE})")
    int limit;

    @Override
    Output execute(Context ctx) {
        List<Views.Job> jobs = ctx.queries().jobs("", limit("--limit", limit, 10_000));
        TextTable t =
                new TextTable("JOB", "KIND", "HOLDER", "EPOCH", "LEASE LEFT", "LAST OUTCOME", "LAST FIRE", "FIRES/H");
        for (Views.Job j : jobs) {
            t.row(
                    j.jobKey(),
                    j.kind(),
                    j.held() ? j.node() : "-",
                    j.epoch(),
                    j.held() ? Html.duration(j.leaseLeft()) : "-",
                    j.lastStatus(),
                    j.lastFireKey(),
                    OverviewPage.fires(j));
        }
        return new Output(Map.of("jobs", jobs.stream().map(CliRows::job).toList()), t.render("no jobs"));
    }
}
