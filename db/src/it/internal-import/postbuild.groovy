// javac refused the import of the internal package, naming the module system's reason, and compiled nothing
def log = new File(basedir, 'build.log').text
assert log.contains('package dev.tenure.internal is declared in module dev.tenure.core, which does not export it to module consumer')
assert !new File(basedir, 'target/classes/consumer/Main.class').exists()
return true
