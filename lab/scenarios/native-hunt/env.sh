# the JVM's defaults (C1 and C2): the crash this suite looks for comes with the JIT replacing methods
RDMA4J_JAVA_OPTS=
