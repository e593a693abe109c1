package io.github.verbs4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.function.Executable;

/** Assertions the kit uses on completions, errno and memory; messages say what differed. */
public final class KitAssertions {
  private KitAssertions() {}

  /**
   * Asserts a completion's wr_id, status, opcode and qp_num.
   *
   * @param wc the completion
   * @param wrId expected wr_id
   * @param status expected status
   * @param opcode expected opcode
   * @param qpNum expected local QP number
   */
  public static void assertWc(WorkCompletion wc, long wrId, WcStatus status, WcOpcode opcode, int qpNum) {
    assertEquals(status, wc.status(), () -> "status of " + wc);
    assertEquals(wrId, wc.wrId(), () -> "wr_id of " + wc);
    assertEquals(opcode, wc.opcode(), () -> "opcode of " + wc);
    assertEquals(qpNum, wc.qpNum(), () -> "qp_num of " + wc);
  }

  /**
   * Asserts an error completion: only wr_id, status and qp_num are defined by libibverbs
   * (CONFORMANCE.md: verbs4j also fills the opcode, checked where a scenario says so).
   *
   * @param wc the completion
   * @param wrId expected wr_id
   * @param status expected status
   * @param qpNum expected local QP number
   */
  public static void assertErrWc(WorkCompletion wc, long wrId, WcStatus status, int qpNum) {
    assertEquals(status, wc.status(), () -> "status of " + wc);
    assertEquals(wrId, wc.wrId(), () -> "wr_id of " + wc);
    assertEquals(qpNum, wc.qpNum(), () -> "qp_num of " + wc);
  }

  /**
   * Runs {@code call} and asserts it throws a {@link VerbsException} with {@code errno}.
   *
   * @param errno the expected errno
   * @param call the call
   * @return the exception, for further checks
   */
  public static VerbsException assertErrno(Errno errno, Executable call) {
    VerbsException e = assertThrows(VerbsException.class, call, () -> "expected " + errno);
    assertEquals(errno, e.errno(), () -> "errno of: " + e.getMessage());
    return e;
  }

  /**
   * Runs {@code call} and asserts it throws EINVAL whose message contains {@code named}.
   *
   * @param named text the message must contain (the field or value)
   * @param call the call
   * @return the exception
   */
  public static VerbsException assertEinvalNaming(String named, Executable call) {
    VerbsException e = assertErrno(Errno.EINVAL, call);
    if (!e.getMessage().contains(named)) {
      fail("EINVAL message must name '" + named + "': " + e.getMessage());
    }
    return e;
  }

  /**
   * Asserts {@code len} bytes at {@code off} of {@code buf} all equal {@code b}.
   *
   * @param buf the memory
   * @param off start
   * @param len length
   * @param b the expected byte
   */
  public static void assertFilled(ByteBuffer buf, int off, int len, byte b) {
    for (int i = 0; i < len; i++) {
      if (buf.get(off + i) != b) {
        fail("byte " + i + " of " + len + " at offset " + off + " is 0x" + Integer.toHexString(buf.get(off + i) & 0xff)
            + ", expected 0x" + Integer.toHexString(b & 0xff));
      }
    }
  }
}
