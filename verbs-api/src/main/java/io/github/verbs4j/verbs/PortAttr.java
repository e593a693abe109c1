package io.github.verbs4j.verbs;

/**
 * Port attributes ({@code struct ibv_port_attr}), returned by {@link Context#queryPort(int)}.
 *
 * @param state logical port state
 * @param maxMtu largest path MTU the port supports
 * @param activeMtu the port's MTU (the MTU of UD messages)
 * @param lid the port's LID, assigned by the coordinator (the subnet manager)
 * @param smLid the subnet manager's LID
 * @param lmc LID mask control
 * @param gidTblLen GID table length
 * @param pkeyTblLen P_Key table length
 * @param qkeyViolCntr UD messages dropped for a Q_Key mismatch
 * @param linkLayer the link layer
 * @param activeSpeed speed code
 * @param activeWidth width code
 */
public record PortAttr(PortState state, Mtu maxMtu, Mtu activeMtu, int lid, int smLid, int lmc, int gidTblLen,
    int pkeyTblLen, long qkeyViolCntr, LinkLayer linkLayer, int activeSpeed, int activeWidth) {

  /**
   * A builder for an active InfiniBand port with a 4096-byte MTU.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds {@link PortAttr} by name. */
  public static final class Builder {
    private PortState state = PortState.ACTIVE;
    private Mtu maxMtu = Mtu.MTU_4096;
    private Mtu activeMtu = Mtu.MTU_4096;
    private int lid;
    private int smLid;
    private int lmc;
    private int gidTblLen = 1;
    private int pkeyTblLen = 1;
    private long qkeyViolCntr;
    private LinkLayer linkLayer = LinkLayer.INFINIBAND;
    private int activeSpeed = 1;
    private int activeWidth = 2;

    private Builder() {}

    /**
     * Sets {@code state}.
     *
     * @param v the new value
     * @return this
     */
    public Builder state(PortState v) {
      state = v;
      return this;
    }

    /**
     * Sets {@code maxMtu}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxMtu(Mtu v) {
      maxMtu = v;
      return this;
    }

    /**
     * Sets {@code activeMtu}.
     *
     * @param v the new value
     * @return this
     */
    public Builder activeMtu(Mtu v) {
      activeMtu = v;
      return this;
    }

    /**
     * Sets {@code lid}.
     *
     * @param v the new value
     * @return this
     */
    public Builder lid(int v) {
      lid = v;
      return this;
    }

    /**
     * Sets {@code smLid}.
     *
     * @param v the new value
     * @return this
     */
    public Builder smLid(int v) {
      smLid = v;
      return this;
    }

    /**
     * Sets {@code lmc}.
     *
     * @param v the new value
     * @return this
     */
    public Builder lmc(int v) {
      lmc = v;
      return this;
    }

    /**
     * Sets {@code gidTblLen}.
     *
     * @param v the new value
     * @return this
     */
    public Builder gidTblLen(int v) {
      gidTblLen = v;
      return this;
    }

    /**
     * Sets {@code pkeyTblLen}.
     *
     * @param v the new value
     * @return this
     */
    public Builder pkeyTblLen(int v) {
      pkeyTblLen = v;
      return this;
    }

    /**
     * Sets {@code qkeyViolCntr}.
     *
     * @param v the new value
     * @return this
     */
    public Builder qkeyViolCntr(long v) {
      qkeyViolCntr = v;
      return this;
    }

    /**
     * Sets {@code linkLayer}.
     *
     * @param v the new value
     * @return this
     */
    public Builder linkLayer(LinkLayer v) {
      linkLayer = v;
      return this;
    }

    /**
     * Sets {@code activeSpeed}.
     *
     * @param v the new value
     * @return this
     */
    public Builder activeSpeed(int v) {
      activeSpeed = v;
      return this;
    }

    /**
     * Sets {@code activeWidth}.
     *
     * @param v the new value
     * @return this
     */
    public Builder activeWidth(int v) {
      activeWidth = v;
      return this;
    }

    /** @return the attributes */
    public PortAttr build() {
      return new PortAttr(state, maxMtu, activeMtu, lid, smLid, lmc, gidTblLen, pkeyTblLen, qkeyViolCntr, linkLayer,
          activeSpeed, activeWidth);
    }
  }
}
