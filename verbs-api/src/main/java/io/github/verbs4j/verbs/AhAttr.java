package io.github.verbs4j.verbs;

/**
 * Address vector ({@code struct ibv_ah_attr}): where a UD or DC message goes, and a connected
 * QP's destination ({@link QueuePair#modify} with {@link QpAttrMask#AV}).
 *
 * <p>verbs4j's fabric is an InfiniBand link layer, so LID routing without a GRH is valid. The
 * DLID is the destination node's LID (its fabric node id).
 *
 * @param dlid destination LID
 * @param sl service level (0..15)
 * @param srcPathBits source path bits
 * @param staticRate static rate code
 * @param isGlobal whether a GRH is used
 * @param dgid destination GID (16 bytes) when global, else null
 * @param sgidIndex source GID index
 * @param hopLimit GRH hop limit
 * @param trafficClass GRH traffic class
 * @param flowLabel GRH flow label
 * @param portNum local port (1-based)
 */
public record AhAttr(int dlid, int sl, int srcPathBits, int staticRate, boolean isGlobal, byte[] dgid,
    int sgidIndex, int hopLimit, int trafficClass, int flowLabel, int portNum) {

  /**
   * An LID-routed address on port 1.
   *
   * @param dlid the destination LID
   * @return the attributes
   */
  public static AhAttr lid(int dlid) {
    return builder().dlid(dlid).build();
  }

  /**
   * A builder (port 1, SL 0, no GRH).
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds an {@link AhAttr} by name. */
  public static final class Builder {
    private int dlid;
    private int sl;
    private int srcPathBits;
    private int staticRate;
    private boolean isGlobal;
    private byte[] dgid;
    private int sgidIndex;
    private int hopLimit = 64;
    private int trafficClass;
    private int flowLabel;
    private int portNum = 1;

    private Builder() {}

    /**
     * @param v destination LID
     * @return this
     */
    public Builder dlid(int v) {
      dlid = v;
      return this;
    }

    /**
     * @param v service level
     * @return this
     */
    public Builder sl(int v) {
      sl = v;
      return this;
    }

    /**
     * @param v source path bits
     * @return this
     */
    public Builder srcPathBits(int v) {
      srcPathBits = v;
      return this;
    }

    /**
     * @param v static rate
     * @return this
     */
    public Builder staticRate(int v) {
      staticRate = v;
      return this;
    }

    /**
     * Uses a GRH with destination GID {@code gid}.
     *
     * @param gid 16 bytes
     * @param sgidIndex source GID index
     * @return this
     */
    public Builder grh(byte[] gid, int sgidIndex) {
      if (gid == null || gid.length != 16) {
        throw new IllegalArgumentException("dgid length=" + (gid == null ? "null" : gid.length) + " must be 16");
      }
      isGlobal = true;
      dgid = gid.clone();
      this.sgidIndex = sgidIndex;
      return this;
    }

    /**
     * @param v hop limit
     * @return this
     */
    public Builder hopLimit(int v) {
      hopLimit = v;
      return this;
    }

    /**
     * @param v traffic class
     * @return this
     */
    public Builder trafficClass(int v) {
      trafficClass = v;
      return this;
    }

    /**
     * @param v flow label
     * @return this
     */
    public Builder flowLabel(int v) {
      flowLabel = v;
      return this;
    }

    /**
     * @param v port number (1-based)
     * @return this
     */
    public Builder portNum(int v) {
      portNum = v;
      return this;
    }

    /** @return the attributes */
    public AhAttr build() {
      return new AhAttr(dlid, sl, srcPathBits, staticRate, isGlobal, dgid, sgidIndex, hopLimit, trafficClass,
          flowLabel, portNum);
    }
  }
}
