# the cost of the binding is the JIT-compiled loop's: the guest's JVMs run with the JVM's defaults (C1 and C2)
RDMA4J_JAVA_OPTS=
