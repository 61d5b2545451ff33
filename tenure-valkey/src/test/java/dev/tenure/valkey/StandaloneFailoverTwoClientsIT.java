package dev.tenure.valkey;

/** {@link StandaloneFailoverIT} with two GLIDE clients in the store: both move to the promoted replica. */
class StandaloneFailoverTwoClientsIT extends StandaloneFailoverIT {

    @Override
    int clients() {
        return 2;
    }
}
