package io.github.verbs4j.verbs;

/**
 * Device capability bits ({@code device_cap_flags}) that verbs4j reports. The kit skips scenarios by capability, never by provider name.
 *
 * <p>Mirrors {@code enum ibv_device_cap_flags} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum DeviceCap implements VerbsEnum {
  /** IBV_DEVICE_RESIZE_MAX_WR: QP capacities can be changed by modify. */
  RESIZE_MAX_WR(1),
  /** IBV_DEVICE_BAD_PKEY_CNTR. */
  BAD_PKEY_CNTR(2),
  /** IBV_DEVICE_BAD_QKEY_CNTR. */
  BAD_QKEY_CNTR(4),
  /** IBV_DEVICE_RAW_MULTI. */
  RAW_MULTI(8),
  /** IBV_DEVICE_AUTO_PATH_MIG. */
  AUTO_PATH_MIG(16),
  /** IBV_DEVICE_CHANGE_PHY_PORT. */
  CHANGE_PHY_PORT(32),
  /** IBV_DEVICE_UD_AV_PORT_ENFORCE. */
  UD_AV_PORT_ENFORCE(64),
  /** IBV_DEVICE_CURR_QP_STATE_MOD. */
  CURR_QP_STATE_MOD(128),
  /** IBV_DEVICE_SHUTDOWN_PORT. */
  SHUTDOWN_PORT(256),
  /** IBV_DEVICE_INIT_TYPE. */
  INIT_TYPE(512),
  /** IBV_DEVICE_PORT_ACTIVE_EVENT. */
  PORT_ACTIVE_EVENT(1024),
  /** IBV_DEVICE_SYS_IMAGE_GUID. */
  SYS_IMAGE_GUID(2048),
  /** IBV_DEVICE_RC_RNR_NAK_GEN. */
  RC_RNR_NAK_GEN(4096),
  /** IBV_DEVICE_SRQ_RESIZE. */
  SRQ_RESIZE(8192),
  /** IBV_DEVICE_N_NOTIFY_CQ. */
  N_NOTIFY_CQ(16384),
  /** IBV_DEVICE_MEM_WINDOW (1 &lt;&lt; 17). */
  MEM_WINDOW(131072),
  /** IBV_DEVICE_UD_IP_CSUM. */
  UD_IP_CSUM(262144),
  /** IBV_DEVICE_XRC (1 &lt;&lt; 20). */
  XRC(1048576),
  /** IBV_DEVICE_MEM_MGT_EXTENSIONS (1 &lt;&lt; 21). */
  MEM_MGT_EXTENSIONS(2097152);

  private static final EnumLookup<DeviceCap> LOOKUP = EnumLookup.of(DeviceCap.class, "ibv_device_cap_flags");

  private final int value;

  DeviceCap(int value) {
    this.value = value;
  }

  @Override
  public int value() {
    return value;
  }

  /**
   * Returns the constant with the verbs.h value {@code value}.
   *
   * @param value a verbs.h value
   * @return the constant
   * @throws IllegalArgumentException naming the value if it is not defined
   */
  public static DeviceCap fromValue(int value) {
    return LOOKUP.fromValue(value);
  }

  /**
   * The bitwise OR of {@code flags}.
   *
   * @param flags flags
   * @return the verbs.h mask
   */
  public static int mask(java.util.Set<DeviceCap> flags) {
    return EnumLookup.mask(flags);
  }

  /**
   * The flags set in {@code mask}.
   *
   * @param mask a verbs.h mask
   * @return the flags
   * @throws IllegalArgumentException naming unknown bits
   */
  public static java.util.EnumSet<DeviceCap> fromMask(int mask) {
    return LOOKUP.fromMask(mask);
  }

  /**
   * Whether this flag's bit is set in {@code mask}.
   *
   * @param mask a verbs.h mask
   * @return true if set
   */
  public boolean isSet(int mask) {
    return (mask & value) != 0;
  }
}
