package dev.tenure.console;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.db.TenureAdmin;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A CLI command that reads (or changes) Tenure's tables once and prints the result as a readable table, or as JSON
 * with {@code --json}. Subclasses compute an {@link Output}; this class opens and closes the pool and prints.
 */
abstract class CliCommand implements Callable<Integer> {

    /** What a command prints: the JSON value, and the same as text. */
    record Output(Object json, String text) {}

    @Mixin
    DatabaseOptions database;

    @Option(names = "--json", description = "print JSON instead of a table")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        try (HikariDataSource ds = database.open()) {
            Output out = execute(new Context(ds, database.schema));
            PrintWriter w = spec.commandLine().getOut();
            w.print(json ? Json.write(out.json()) + System.lineSeparator() : out.text());
            w.flush();
            return 0;
        }
    }

    abstract Output execute(Context ctx);

    /**
     * Asks {@code question} on the terminal (on stderr, so --json output stays clean) unless {@code yes}; refuses
     * (an {@link IllegalArgumentException}, nothing changed) without a terminal or without a yes.
     */
    void confirm(ConsoleMain main, boolean yes, String command, String question) {
        if (yes) {
            return;
        }
        BufferedReader terminal = main.terminal();
        if (terminal == null) {
            throw new IllegalArgumentException(command + " needs a confirmation: run it at a terminal, or add --yes");
        }
        PrintWriter err = spec.commandLine().getErr();
        err.print(question + " Type yes to confirm: ");
        err.flush();
        String answer;
        try {
            answer = terminal.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the confirmation: " + e.getMessage(), e);
        }
        if (answer == null
                || !(answer.strip().equalsIgnoreCase("yes") || answer.strip().equalsIgnoreCase("y"))) {
            throw new IllegalArgumentException("not confirmed: nothing changed");
        }
    }

    /** {@code value} if it is 1..{@code max}, else an error naming the option. */
    static int limit(String option, int value, int max) {
        if (value < 1 || value > max) {
            throw new IllegalArgumentException(option + " must be 1.." + max + " (got " + value + ")");
        }
        return value;
    }

    /** The data source and what the command reads it with. */
    record Context(HikariDataSource dataSource, String schema) {
        ConsoleQueries queries() {
            return new ConsoleQueries(dataSource, schema);
        }

        TenureAdmin admin() {
            return TenureAdmin.create(dataSource, schema);
        }
    }
}
