package io.github.verbs4j.ib.engine;

/**
 * A DC initiator's current connection to a DC target: the target (LID, DCT number, DC key) and the
 * connection's epoch (an 8-bit generation and the PSN it started at), carried in every packet so the
 * target can tell a new connection from late packets of an old one. Under the agent.
 */
final class DcEpoch {
  private boolean connected;
  private int dlid;
  private int dctn;
  private long key;
  private int generation;
  private int epochPsn;

  /** The QP was reset: no connection. */
  void reset() {
    connected = false;
  }

  /** @return whether {@code w} goes to the target of the current connection */
  boolean current(SendWqe w) {
    return connected && w.dlid == dlid && w.dctn == dctn && w.dcKey == key;
  }

  /** Connects to {@code w}'s target, a new epoch starting at {@code psn}. */
  void connect(SendWqe w, int psn) {
    connected = true;
    dlid = w.dlid;
    dctn = w.dctn;
    key = w.dcKey;
    generation = (generation + 1) & 0xFF;
    epochPsn = psn;
  }

  /** @return whether connected to a target at {@code lid} */
  boolean connectedTo(int lid) {
    return connected && dlid == lid;
  }

  /** @return the target's LID */
  int dlid() {
    return dlid;
  }

  /** @return the epoch's generation */
  int generation() {
    return generation;
  }

  /** @return the PSN the epoch started at */
  int epochPsn() {
    return epochPsn;
  }
}
