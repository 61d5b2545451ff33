package dev.tenure.testkit;

/** Run by {@link JvmProcessIT} in a child JVM. */
public final class ChildMain {

    private ChildMain() {}

    /** {@code echo a b} prints its arguments and exits 3; {@code tick} prints a counter every 10 ms forever. */
    public static void main(String[] args) throws InterruptedException {
        if (args[0].equals("echo")) {
            for (int i = 1; i < args.length; i++) {
                System.out.println("arg:" + args[i]);
            }
            System.err.println("done");
            System.exit(3);
        }
        System.out.println("READY");
        for (long tick = 0; ; tick++) {
            System.out.println("tick " + tick);
            Thread.sleep(10);
        }
    }
}
