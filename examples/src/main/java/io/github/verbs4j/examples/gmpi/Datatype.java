package io.github.verbs4j.examples.gmpi;

/** The element types of GMPI messages and reductions, with their wire values and sizes. */
public enum Datatype {
  /** 1 byte. */
  BYTE(1, 1),
  /** 4-byte int. */
  INT(2, 4),
  /** 8-byte long. */
  LONG(3, 8),
  /** 8-byte double. */
  DOUBLE(4, 8);

  private final int value;
  private final int size;

  Datatype(int value, int size) {
    this.value = value;
    this.size = size;
  }

  /** @return the wire value */
  public int value() {
    return value;
  }

  /** @return bytes per element */
  public int size() {
    return size;
  }

  /**
   * @param value a wire value
   * @return the datatype
   * @throws IllegalArgumentException naming the value if none has it
   */
  public static Datatype fromValue(long value) {
    for (Datatype d : values()) {
      if (d.value == value) {
        return d;
      }
    }
    throw new IllegalArgumentException("datatype " + value + " is not a GMPI datatype (1..4)");
  }
}
