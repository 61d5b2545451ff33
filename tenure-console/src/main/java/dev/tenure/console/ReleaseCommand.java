package dev.tenure.console;

import dev.tenure.db.TenureAdmin;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code release JOB --reason … --actions [--yes]}: force-release through {@link TenureAdmin#forceRelease}, audited.
 * Guarded like the web console's action: refused without {@code --actions}, without a confirmation (typed at the
 * terminal, or {@code --yes}), and for a job nobody holds. A refusal changes nothing and exits with 1.
 */
@Command(
        name = "release",
        description =
                "Force-release a held job: bumps the epoch (the holder's next fence fails), "
                        + "abandons its running run, writes an audit row. Needs --actions, and a confirmation at the terminal or --yes.")
final class ReleaseCommand extends CliCommand {

    @Parameters(index = "0", paramLabel = "JOB", description = "the job key")
    String job;

    @Option(names = "--reason", required = true, description = "why (1..500 characters; kept in audit_log)")
    String reason;

    @Option(names = "--actor", description = "who, for audit_log (default: cli:<OS user>)")
    String actor;

    @Option(
            names = "--actions",
            description =
                    "allow this command to change Tenure's state (the CLI is read-only " + "without it, as serve is)")
    boolean actions;

    @Option(names = "--yes", description = "do not ask for a confirmation (for scripts)")
    boolean yes;

    @ParentCommand
    ConsoleMain main;

    @Mixin
    ValkeyOptions valkey;

    @Override
    Output execute(Context ctx) {
        if (!actions) {
            throw new IllegalArgumentException(
                    "release changes Tenure's state: add --actions to allow it " + "(without it the CLI only reads)");
        }
        String who = actor != null ? actor : "cli:" + System.getProperty("user.name", "unknown");
        TenureAdmin admin = valkey.admin(ctx);
        TenureAdmin.JobState state = admin.job(job)
                .orElseThrow(() -> new IllegalArgumentException("no job '" + job + "' in Tenure's tables"));
        boolean held = state.owner() != null
                && state.leaseLeft() != null
                && state.leaseLeft().compareTo(Duration.ZERO) > 0;
        if (!held) {
            throw new IllegalArgumentException("nobody holds job '" + job + "' (epoch " + state.epoch()
                    + (state.owner() == null
                            ? ""
                            : ", the lease of " + Nodes.named(state.node(), state.owner()) + " has ended")
                    + "): nothing to release");
        }
        confirm(state);
        TenureAdmin.ForceRelease r = admin.forceRelease(job, reason, who);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("job", r.jobKey());
        json.put("oldEpoch", r.oldEpoch());
        json.put("oldOwner", r.oldOwner());
        json.put("oldNode", r.oldOwner() == null ? null : Nodes.named(r.oldNode(), r.oldOwner()));
        json.put("newEpoch", r.newEpoch());
        json.put("auditId", r.auditId());
        json.put("actor", who);
        json.put("valkeyLease", r.valkeyLease().name());
        return new Output(
                json,
                "released " + r.jobKey() + ": epoch " + r.oldEpoch() + " -> " + r.newEpoch()
                        + (r.oldOwner() == null
                                ? " (nobody held it any more)"
                                : " (was held by " + Nodes.named(r.oldNode(), r.oldOwner()) + ")")
                        + ", audit #" + r.auditId() + " by " + who + valkeyNote(r.valkeyLease())
                        + System.lineSeparator());
    }

    private static String valkeyNote(TenureAdmin.ValkeyLease v) {
        return switch (v) {
            case NOT_CONFIGURED -> "";
            case DELETED -> "; Valkey lease deleted";
            case NONE -> "; no Valkey lease";
            case NOT_CONFIRMED ->
                "; Valkey lease NOT deleted (Valkey did not answer): the holder gives it back at its next renewal";
        };
    }

    /** Asks on the terminal unless --yes was given. */
    private void confirm(TenureAdmin.JobState state) {
        confirm(
                main,
                yes,
                "release",
                "Force-release job '" + job + "', held by " + Nodes.named(state.node(), state.owner()) + " at epoch "
                        + state.epoch() + " (lease left " + Html.duration(state.leaseLeft()) + ")? Its next fence "
                        + "check fails and its running run is abandoned.");
    }
}
