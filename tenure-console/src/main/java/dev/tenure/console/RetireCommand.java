package dev.tenure.console;

import dev.tenure.db.TenureAdmin;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code retire JOB --reason … --actions [--yes]}: retires a schedule by hand through {@link TenureAdmin#retire},
 * audited: a removed job stops alarming at once instead of after {@code retireSchedulesAfter}. Guarded like
 * {@code release}: refused without {@code --actions} and without a confirmation (typed at the terminal, or
 * {@code --yes}); a job without a schedule is an error naming it; a schedule already RETIRED is reported and left as it
 * is. A refusal changes nothing and exits with 1.
 */
@Command(
        name = "retire",
        description = "Retire a job's schedule by hand: it leaves the sweeps and the health checks, its pending "
                + "catch-ups are dropped, an audit row is written; a process that registers the job again makes it "
                + "ACTIVE again. Needs --actions, and a confirmation at the terminal or --yes.")
final class RetireCommand extends CliCommand {

    /**
     * A registration marked this recently may belong to a process that still runs (live processes mark theirs at least
     * once a minute).
     */
    static final Duration RECENT = Duration.ofMinutes(3);

    @Parameters(index = "0", paramLabel = "JOB", description = "the job key")
    String job;

    @Option(names = "--reason", required = true, description = "why (1..500 characters; kept in audit_log)")
    String reason;

    @Option(names = "--actor", description = "who, for audit_log (default: cli:<OS user>)")
    String actor;

    @Option(
            names = "--actions",
            description = "allow this command to change Tenure's state (the CLI is read-only without it, as serve is)")
    boolean actions;

    @Option(names = "--yes", description = "do not ask for a confirmation (for scripts)")
    boolean yes;

    @ParentCommand
    ConsoleMain main;

    @Override
    Output execute(Context ctx) {
        if (!actions) {
            throw new IllegalArgumentException(
                    "retire changes Tenure's state: add --actions to allow it (without it the CLI only reads)");
        }
        String who = actor != null ? actor : "cli:" + System.getProperty("user.name", "unknown");
        TenureAdmin admin = ctx.admin();
        TenureAdmin.ScheduleState st = admin.schedule(job)
                .orElseThrow(() -> new IllegalArgumentException(
                        "job '" + job + "' has no schedule in Tenure's ledger (job_schedule): nothing to retire"));
        if (!st.retired()) {
            confirm(
                    main,
                    yes,
                    "retire",
                    "Retire the schedule of job '" + job + "' (" + st.state() + ", application " + st.application()
                            + ", version " + st.version() + ", last seen " + Html.time(st.seenAt()) + ")? It leaves "
                            + "the sweeps and the health checks, and its pending catch-ups are dropped.");
        }
        TenureAdmin.Retirement r = st.retired() ? alreadyRetired(st) : admin.retire(job, reason, who);
        boolean recent = r.retired() && r.seenAt() != null && r.seenAt().isAfter(r.at().minus(RECENT));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("job", r.jobKey());
        json.put("retired", r.retired());
        json.put("previousState", r.previousState());
        json.put("since", r.since());
        json.put("reason", r.reason());
        json.put("by", r.by());
        json.put("auditId", r.retired() ? r.auditId() : null);
        json.put("catchUpsDropped", r.catchUpsDropped());
        json.put("seenAt", r.seenAt());
        json.put("seenRecently", recent);
        return new Output(json, text(r, recent));
    }

    /** What {@link TenureAdmin#retire} reports for a schedule already RETIRED, without a write. */
    private static TenureAdmin.Retirement alreadyRetired(TenureAdmin.ScheduleState st) {
        Instant now = st.readAt() != null ? st.readAt() : Instant.now();
        return new TenureAdmin.Retirement(
                st.jobKey(),
                false,
                st.state(),
                st.stateSince(),
                st.stateReason(),
                st.stateBy(),
                0,
                0,
                st.seenAt(),
                now);
    }

    private static String text(TenureAdmin.Retirement r, boolean recent) {
        String nl = System.lineSeparator();
        String since = "since " + Html.time(r.since()) + " by " + r.by() + ": " + r.reason();
        if (!r.retired()) {
            return r.jobKey() + " is already RETIRED " + since + "; nothing changed" + nl;
        }
        return "retired " + r.jobKey() + " (was " + r.previousState() + "): RETIRED " + since + ", audit #"
                + r.auditId()
                + (r.catchUpsDropped() == 0 ? "" : ", " + r.catchUpsDropped() + " pending catch-up(s) dropped")
                + nl
                + (recent
                        ? "note: a process marked this registration at " + Html.time(r.seenAt()) + ". If it still "
                                + "runs, the job's fires still run there but are no longer accounted for; it makes the "
                                + "schedule ACTIVE again when it registers the job (at its next start)." + nl
                        : "");
    }
}
