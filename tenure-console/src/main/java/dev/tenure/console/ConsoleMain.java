package dev.tenure.console;

import dev.tenure.TenureException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The console's command line: {@code status}, {@code runs JOB}, {@code schedules}, {@code missed}, {@code leaders},
 * {@code release JOB --reason …}, {@code retire JOB --reason …},
 * {@code migrate}, {@code ttl-advice}, {@code prune --older-than …} (tables, or JSON with {@code --json}) and
 * {@code serve} (the web page). The executable jar's main class:
 * {@code java -jar tenure-console.jar status --jdbc-url jdbc:postgresql://db/app --user ops}.
 *
 * <p>Exit codes: 0 done, 1 a fault or refusal (the message on stderr), 2 bad usage. The commands that change state,
 * {@code release} and {@code retire}, need {@code --actions} and a confirmation typed at the terminal (or
 * {@code --yes}).
 */
@Command(
        name = "tenure-console",
        mixinStandardHelpOptions = true,
        version = "tenure-console 0.1.0",
        description = "Tenure's ops console: who holds which job, every fire's outcome, schedules and missed fires, "
                + "leader elections, force-release, retiring a schedule, retention.",
        subcommands = {
            StatusCommand.class,
            RunsCommand.class,
            SchedulesCommand.class,
            MissedCommand.class,
            LeadersCommand.class,
            ReleaseCommand.class,
            RetireCommand.class,
            MigrateCommand.class,
            TtlAdviceCommand.class,
            PruneCommand.class,
            ServeCommand.class
        })
public final class ConsoleMain implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** Where confirmations are read from; null when there is no terminal. */
    private final BufferedReader terminal;

    private ConsoleMain(BufferedReader terminal) {
        this.terminal = terminal;
    }

    /** The terminal to read a confirmation from, or null without one. */
    BufferedReader terminal() {
        return terminal;
    }

    /** Without a command: the usage. */
    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        // the executable jar logs with slf4j-simple: warnings only, but the console's own actions (force-release)
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
            System.setProperty("org.slf4j.simpleLogger.log.dev.tenure.console", "info");
        }
        BufferedReader terminal = System.console() == null
                ? null
                : new BufferedReader(new InputStreamReader(System.in, Charset.defaultCharset()));
        System.exit(run(terminal, new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs one command line without a terminal (confirmations need {@code --yes}); returns the exit code. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return run(null, out, err, args);
    }

    /**
     * Runs one command line, printing to {@code out} and {@code err} and reading confirmations from {@code terminal}
     * (null: there is none); returns the exit code.
     */
    public static int run(BufferedReader terminal, PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new ConsoleMain(terminal)).setOut(out).setErr(err);
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            if (e instanceof IllegalArgumentException || e instanceof TenureException) {
                line.getErr().println("error: " + e.getMessage());
                line.getErr().flush();
                return 1;
            }
            throw e;
        });
        return cl.execute(args);
    }
}
