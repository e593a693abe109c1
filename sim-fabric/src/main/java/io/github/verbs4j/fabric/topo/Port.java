package io.github.verbs4j.fabric.topo;

/** PEACH2 ports (seed 001): N to the host, E and W to the ring neighbours, S to the other ring. */
public enum Port {
  /** To the host (always an endpoint); frames for this node leave by N. */
  N(0),
  /** East: endpoint side of the ring, towards the next node. */
  E(1),
  /** West: root-complex side of the ring, towards the previous node. */
  W(2),
  /** South: joins node i of ring A to node i of ring B. */
  S(3);

  private static final Port[] BY_VALUE = {N, E, W, S};
  private final int value;

  Port(int value) {
    this.value = value;
  }

  /** @return the port number carried in {@link Link} */
  public int value() {
    return value;
  }

  /**
   * @param value a port number
   * @return the port
   * @throws IllegalArgumentException naming the value if unknown
   */
  public static Port fromValue(int value) {
    if (value < 0 || value >= BY_VALUE.length) {
      throw new IllegalArgumentException("PEACH2 port value=" + value + " is not one of N=0, E=1, W=2, S=3");
    }
    return BY_VALUE[value];
  }
}
