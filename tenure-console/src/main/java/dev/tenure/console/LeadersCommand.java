package dev.tenure.console;

import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code leaders}: every role (rows without runs): its leader, epoch and since when. */
@Command(
        name = "leaders",
        description = "Leader elections: role, current leader, epoch, since when. Roles are "
                + "job_execution rows without job_run rows (plain database leases look the same).")
final class LeadersCommand extends CliCommand {

    @Override
    Output execute(Context ctx) {
        List<Views.Leader> leaders = ctx.queries().leaders(1000);
        TextTable t = new TextTable("ROLE", "LEADER", "TERM", "SINCE", "LEASE LEFT");
        for (Views.Leader l : leaders) {
            t.row(
                    l.role(),
                    l.leader() == null ? "none" : l.leaderNode(),
                    l.epoch(),
                    Html.time(l.since()),
                    Html.duration(l.leaseLeft()));
        }
        return new Output(
                Map.of("leaders", leaders.stream().map(CliRows::leader).toList()), t.render("no roles"));
    }
}
