package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.Context;

/**
 * Fault injection on one rank's port, for the port-event scenarios ({@link PortEventConformance}):
 * takes the link of a context's port down as a cut cable would, and brings it back. The API has
 * no such call (a program cannot pull its own cable); a {@link KitEnvironment} provides it through
 * {@link KitEnvironment#linkControl(Context)}, typically over the fabric's fault injector.
 */
public interface LinkControl {
  /** Builds the control of a context's port; returns null if it cannot (the scenario is skipped). */
  @FunctionalInterface
  interface Factory {
    /**
     * @param ctx a context opened in this environment, on this rank
     * @return its port's control, or null
     */
    LinkControl of(Context ctx);
  }

  /** Takes the port's link down: the port goes DOWN and raises PORT_ERR; traffic over it is lost. */
  void down();

  /** Brings the link up again: the port goes ACTIVE and raises PORT_ACTIVE. */
  void up();

  /**
   * A control from two actions, e.g. a fabric node's {@code links()::takeDown} and {@code ::bringUp}.
   *
   * @param down takes the link down
   * @param up brings it up
   * @return the control
   */
  static LinkControl of(Runnable down, Runnable up) {
    return new LinkControl() {
      @Override
      public void down() {
        down.run();
      }

      @Override
      public void up() {
        up.run();
      }
    };
  }
}
