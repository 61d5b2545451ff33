package dev.tenure.console;

import dev.tenure.TenureException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

/**
 * The console's command line: {@code status}, {@code runs JOB}, {@code leaders}, {@code release JOB --reason …},
 * {@code migrate}, {@code ttl-advice}, {@code prune --older-than …} (tables, or JSON with {@code --json}) and
 * {@code serve} (the web page). The executable jar's main class:
 * {@code java -jar tenure-console.jar status --jdbc-url jdbc:postgresql://db/app --user ops}.
 *
 * <p>Exit codes: 0 done, 1 a fault or refusal (the message on stderr), 2 bad usage.
 */
@Command(name = "tenure-console", mixinStandardHelpOptions = true, version = "tenure-console 0.1.0",
        description = "Tenure's ops console: who holds which job, every fire's outcome, leader elections, force-release, "
                + "retention.",
        subcommands = {StatusCommand.class, RunsCommand.class, LeadersCommand.class, ReleaseCommand.class,
            MigrateCommand.class, TtlAdviceCommand.class, PruneCommand.class, ServeCommand.class})
public final class ConsoleMain implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    private ConsoleMain() {
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
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs one command line, printing to {@code out} and {@code err}; returns the exit code. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new ConsoleMain()).setOut(out).setErr(err);
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
