package consumer;

import dev.tenure.internal.HostPort;

public final class Main {
    public static void main(String[] args) {
        System.out.println(HostPort.class);
    }
}
