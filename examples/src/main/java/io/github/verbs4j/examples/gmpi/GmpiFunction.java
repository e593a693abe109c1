package io.github.verbs4j.examples.gmpi;

/**
 * The function id in word 0 of an attribute. Values are the wire values of the ring (0 marks a
 * free slot); {@link #ECHO} is not an MPI function: the daemon answers it with the sum of its
 * arguments, for the argument-count study and the ring tests.
 */
public enum GmpiFunction {
  /** {@code GMPI_Isend(buf, count, datatype, dest, tag, comm)}: answers the request handle. */
  ISEND(1, "GMPI_Isend"),
  /** {@code GMPI_Irecv(buf, count, datatype, source, tag, comm)}: answers the request handle. */
  IRECV(2, "GMPI_Irecv"),
  /** {@code GMPI_Wait(request)}: answers source, tag and length. */
  WAIT(3, "GMPI_Wait"),
  /** {@code GMPI_Waitall(count, request...)}: up to 30 handles as arguments. */
  WAITALL(4, "GMPI_Waitall"),
  /** {@code GMPI_Allreduce(buf, count, datatype, op, comm)}: in place on device memory. */
  ALLREDUCE(5, "GMPI_Allreduce"),
  /** {@code GMPI_Synchronize()}: answers once every request this rank posted so far is done. */
  SYNCHRONIZE(6, "GMPI_Synchronize"),
  /** A probe: the answer is the sum of the arguments. */
  ECHO(7, "GMPI_Echo");

  private static final GmpiFunction[] BY_VALUE = new GmpiFunction[8];

  static {
    for (GmpiFunction f : values()) {
      BY_VALUE[f.value] = f;
    }
  }

  private final int value;
  private final String cName;

  GmpiFunction(int value, String cName) {
    this.value = value;
    this.cName = cName;
  }

  /** @return the wire value (1..7) */
  public int value() {
    return value;
  }

  /** @return the C name, for messages */
  public String cName() {
    return cName;
  }

  /**
   * @param value a wire value
   * @return its function
   * @throws IllegalArgumentException naming the value if none has it
   */
  public static GmpiFunction fromValue(int value) {
    GmpiFunction f = value > 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    if (f == null) {
      throw new IllegalArgumentException("function id " + value + " is not a GMPI function (1..7)");
    }
    return f;
  }
}
