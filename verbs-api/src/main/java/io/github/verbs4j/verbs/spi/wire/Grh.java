package io.github.verbs4j.verbs.spi.wire;

/**
 * The Global Route Header area of a UD receive (IBTA 8.3, ibv_post_recv(3)): the first 40 bytes of
 * every UD receive buffer are reserved for a GRH whether or not the packet carried one, the payload
 * lands after them, and the completion's {@code byte_len} counts them. A device that receives no
 * GRH (LID-routed packets, {@code IBV_WC_GRH} clear) leaves the area as it was.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-------+---------------+---------------------------------------+
 * | IPVer |  TClass       |            Flow Label                 |   0
 * +-------+-------+-------+-------+---------------+---------------+
 * |        Payload Length         |    Next Hdr   |   Hop Limit   |   4
 * +-------------------------------+---------------+---------------+
 * |                  Source GID (16 bytes)                        |   8
 * +---------------------------------------------------------------+
 * |                Destination GID (16 bytes)                     |  24
 * +---------------------------------------------------------------+
 * </pre>
 *
 * Big-endian, as all IBA headers.
 */
public final class Grh {
  /** Bytes of a GRH, and of the area reserved at the start of a UD receive buffer. */
  public static final int LENGTH = 40;

  private Grh() {}
}
