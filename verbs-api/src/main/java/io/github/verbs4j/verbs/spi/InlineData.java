package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.ScatterList;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.Sge;
import io.github.verbs4j.verbs.VerbsException;
import java.nio.ByteBuffer;

/**
 * Inline send data ({@code IBV_SEND_INLINE}), the same for every provider: where each SGE's bytes
 * come from, the post-time checks, and the copy into a send WQE at post time.
 *
 * <p>The source of an SGE of an inline WR:
 * <ul>
 *   <li>a buffer SGE ({@link Sge#set(ByteBuffer)}): bytes {@code [bufferOffset, bufferOffset +
 *       length)} of its buffer, which the application handed over for the post call;
 *   <li>an address SGE: the region its lkey names if that region is live and holds the range, else
 *       any live region of the context that does ({@link RegionDirectory}); the lkey and PD of
 *       inline data are not checked ({@code ibv_post_send(3)}; rxe and mlx5 copy from the
 *       process's memory);
 *   <li>nothing else. A C provider would dereference the address; Java code must not read memory
 *       nobody granted, so the post fails with EINVAL instead.
 * </ul>
 * A zero-length SGE needs no source. A buffer SGE in a WR without INLINE fails at post: the
 * provider would read it after {@code postSend} returned, and it has no lkey.
 */
public final class InlineData {
  private InlineData() {}

  /**
   * The post-time checks of a send WR's SGE sources (provider-neutral, in {@link
   * AbstractQueuePair#postSend}).
   *
   * @param wr the WR
   * @param inline whether it has {@code IBV_SEND_INLINE}
   * @param index its index in the chain
   * @param ctx the QP's context
   * @throws VerbsException EINVAL naming the SGE, its value and the WR index
   */
  static void check(SendWr wr, boolean inline, int index, AbstractContext ctx) {
    ScatterList list = wr.sgList();
    for (int i = 0; i < list.numSge(); i++) {
      Sge s = list.sge(i);
      ByteBuffer b = s.buffer();
      if (b != null) {
        if (!inline) {
          throw new VerbsException(Errno.EINVAL, "sge[" + i + "] is a ByteBuffer SGE but the WR lacks IBV_SEND_INLINE: "
              + "only inline data may come from a buffer; other data needs a memory region's address and lkey",
              index, null);
        }
        if (s.length() > b.limit() - s.bufferOffset()) {
          throw new VerbsException(Errno.EINVAL, "sge[" + i + "].length=" + s.length() + " at buffer offset "
              + s.bufferOffset() + " exceeds the buffer's limit=" + b.limit(), index, null);
        }
      } else if (inline && s.length() > 0 && region(s, ctx) == null) {
        throw new VerbsException(Errno.EINVAL, "sge[" + i + "].addr=0x" + Long.toHexString(s.addr()) + " length="
            + s.length() + " is in no memory region of this context: inline data is read from a registered region "
            + "or a ByteBuffer SGE, never from a raw address", index, null);
      }
    }
  }

  /**
   * The region an inline address SGE is read from.
   *
   * @param s an address SGE
   * @param ctx the context
   * @return the region, or null if none holds it
   */
  public static SoftMemoryRegion region(Sge s, AbstractContext ctx) {
    SoftMemoryRegion mr = ctx.memoryKeys().byLkey(s.lkey());
    if (mr != null && mr.isValid() && mr.contains(s.addr(), s.length())) {
      return mr;
    }
    return ctx.regions().containing(s.addr(), s.length());
  }

  /**
   * Copies the data of a validated inline WR, SGE after SGE, into {@code into} at {@code at}
   * (posting thread; allocates nothing).
   *
   * @param wr the WR, checked by {@code postSend}
   * @param ctx the QP's context
   * @param into the WQE's inline buffer, at least {@code at + total length} long
   * @param at where the first byte goes
   * @return false if a source vanished since the check (a region deregistered or a buffer's limit
   *     lowered by another thread meanwhile): nothing was read from it, and the WR should complete
   *     with {@code LOC_PROT_ERR}
   */
  public static boolean copy(SendWr wr, AbstractContext ctx, ByteBuffer into, int at) {
    ScatterList list = wr.sgList();
    int pos = at;
    for (int i = 0; i < list.numSge(); i++) {
      Sge s = list.sge(i);
      int len = s.length();
      if (len == 0) {
        continue;
      }
      ByteBuffer b = s.buffer();
      if (b != null) {
        if (len > b.limit() - s.bufferOffset()) {
          return false;
        }
        into.put(pos, b, s.bufferOffset(), len);
      } else {
        SoftMemoryRegion mr = region(s, ctx);
        if (mr == null) {
          return false;
        }
        if (!mr.copyOut(s.addr(), into, pos, len)) {
          return false;
        }
      }
      pos += len;
    }
    return true;
  }
}
