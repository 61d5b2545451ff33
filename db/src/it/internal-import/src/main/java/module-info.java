module consumer {
    requires dev.tenure.db;
}
