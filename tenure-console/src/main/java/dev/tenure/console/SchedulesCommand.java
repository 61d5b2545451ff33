package dev.tenure.console;

import dev.tenure.db.OverdueFires;
import dev.tenure.db.TenureAdmin;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code schedules}: every scheduled job as the ledger records it (the application that registers it, its state and
 * version), with the sweeper's account of its fires: last success, next due, fires recorded MISSED in the last hour
 * and in all (a summary record by its fires), fires overdue now with since when (by the database clock, whether or not
 * a sweeper runs; a line under the table names each job that has some). The JSON adds the state's since, why and
 * by whom, the version's start, when a live process last marked it, when the sweeper looks next, why its sweep fails,
 * and what needs attention in words.
 */
@Command(
        name = "schedules",
        description = "Scheduled jobs: application, state (ACTIVE, PAUSED, RETIRED), version, schedule, policy, "
                + "integration, last success, next due, missed in the last hour and in all, overdue, who registered "
                + "it, a replaced schedule.")
final class SchedulesCommand extends CliCommand {

    @Option(
            names = "--limit",
            defaultValue = "200",
            description = "at most this many jobs, by key (default: ${DEFAULT-VALUE})")
    int limit;

    @Override
    Output execute(Context ctx) {
        List<TenureAdmin.ScheduleState> all = ctx.admin().schedules(limit("--limit", limit, 10_000));
        Map<String, OverdueFires> overdue = ctx.admin()
                .overdue(all.stream().map(TenureAdmin.ScheduleState::jobKey).toList());
        TextTable t = new TextTable(
                "JOB",
                "APP",
                "STATE",
                "VERSION",
                "SCHEDULE",
                "POLICY",
                "INTEGRATION",
                "LAST SUCCESS",
                "NEXT DUE",
                "MISSED/H",
                "MISSED",
                "OVERDUE",
                "REGISTERED BY",
                "REPLACED");
        for (TenureAdmin.ScheduleState s : all) {
            t.row(
                    s.jobKey(),
                    s.application(),
                    s.state(),
                    s.version(),
                    s.kind() + " " + s.expression(),
                    s.policy(),
                    s.integration(),
                    Html.time(s.lastSuccessAt()),
                    s.paused() || s.retired() ? "-" : Html.time(s.nextDueAt()),
                    OverviewPage.missed(s),
                    s.missedTotal(),
                    overdue.containsKey(s.jobKey()) ? OverviewPage.overdue(overdue.get(s.jobKey())) : s.overdue(),
                    s.registeredBy(),
                    s.previousSchedule() == null ? "" : s.previousSchedule() + " (by " + s.previousBy() + ")");
        }
        StringBuilder text = new StringBuilder(t.render("no scheduled jobs"));
        for (TenureAdmin.ScheduleState s : all) {
            OverdueFires late = overdue.get(s.jobKey());
            if (late != null && late.any()) {
                text.append("overdue: ")
                        .append(s.jobKey())
                        .append(": ")
                        .append(late.shown())
                        .append(late.count() == 1 && late.exact() ? " fire" : " fires")
                        .append(" overdue")
                        .append(late.since() == null ? "" : " since " + Html.time(late.since()))
                        .append(" (database clock; no sweeper has accounted for them)")
                        .append(System.lineSeparator());
            }
        }
        return new Output(
                Map.of(
                        "schedules",
                        all.stream()
                                .map(s -> CliRows.schedule(s, overdue.get(s.jobKey())))
                                .toList()),
                text.toString());
    }
}
