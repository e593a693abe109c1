package io.github.verbs4j.verbs.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.Sge;
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.SrqAttrMask;
import io.github.verbs4j.verbs.VerbsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link ReceiveQueue} and {@link SoftSharedReceiveQueue} without a provider: FIFO, queue full,
 * SGE limit with the failing WR's index, and the SRQ limit event once per arming (§4.4; pyverbs
 * test_modify_srq_limit).
 */
class SoftSharedReceiveQueueTest {

  private static RecvWr chain(int n, long firstId) {
    RecvWr head = null;
    for (int i = n - 1; i >= 0; i--) {
      head = new RecvWr().wrId(firstId + i).sgList(new Sge(0x1000 + i, 64, 42)).next(head);
    }
    return head;
  }

  private static List<AsyncEvent> drain(TestContext ctx) {
    List<AsyncEvent> list = new ArrayList<>();
    Optional<AsyncEvent> e;
    while ((e = ctx.pollAsyncEvent(Duration.ZERO)).isPresent()) {
      list.add(e.get());
    }
    return list;
  }

  @Test
  void limitEventFiresOnceWhenTheCountDropsBelowTheLimit() {
    TestContext ctx = new TestContext();
    try (ProtectionDomain pd = ctx.allocPd()) {
      SoftSharedReceiveQueue srq = (SoftSharedReceiveQueue) pd.createSrq(SrqAttr.of(16, 1));
      srq.postRecv(chain(10, 0));
      srq.arm(7);
      assertEquals(7, srq.query().srqLimit());
      RecvWqe into = new RecvWqe();
      for (int i = 0; i < 3; i++) {
        assertTrue(srq.pop(into));
        assertEquals(i, into.wrId(), "FIFO");
      }
      assertEquals(List.of(), drain(ctx), "7 left is not below 7: no event yet");
      assertTrue(srq.pop(into));
      List<AsyncEvent> events = drain(ctx);
      assertEquals(1, events.size(), "exactly one event: " + events);
      assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, events.get(0).type());
      assertSame(srq, events.get(0).srq());
      assertEquals(0, srq.query().srqLimit(), "the limit disarms");
      while (srq.pop(into)) {
        // consume the rest
      }
      assertEquals(List.of(), drain(ctx), "no second event until re-armed");
      srq.postRecv(chain(4, 100));
      srq.arm(3);
      srq.pop(into);
      srq.pop(into);
      assertEquals(1, drain(ctx).size(), "re-arming gives one more event");
      srq.close();
    }
    ctx.close();
  }

  @Test
  void limitAboveMaxWrFailsWithEinvalAndChangesNothing() {
    TestContext ctx = new TestContext();
    try (ProtectionDomain pd = ctx.allocPd()) {
      SoftSharedReceiveQueue srq = (SoftSharedReceiveQueue) pd.createSrq(SrqAttr.of(8, 1));
      srq.arm(2);
      VerbsException e = assertThrows(VerbsException.class, () -> srq.arm(srq.query().maxWr() + 1));
      assertEquals(Errno.EINVAL, e.errno());
      assertTrue(e.getMessage().contains("srq_limit"), e.getMessage());
      assertEquals(2, srq.query().srqLimit());
      srq.close();
    }
    ctx.close();
  }

  @Test
  void resizeWithoutTheCapabilityFailsWithEopnotsupp() {
    TestContext ctx = new TestContext();
    try (ProtectionDomain pd = ctx.allocPd()) {
      SoftSharedReceiveQueue srq = (SoftSharedReceiveQueue) pd.createSrq(SrqAttr.of(8, 1));
      VerbsException e = assertThrows(VerbsException.class,
          () -> srq.modify(new SrqAttr(16, 1, 0), SrqAttrMask.MAX_WR.value()));
      assertEquals(Errno.EOPNOTSUPP, e.errno());
      assertEquals(8, srq.query().maxWr());
      srq.close();
    }
    ctx.close();
  }

  @Test
  void resizeWithTheCapabilityGrowsAndKeepsPostedWrs() {
    TestContext ctx = new TestContext(DeviceAttr.builder().capabilities(Set.of(Capability.SRQ_RESIZE)).build());
    try (ProtectionDomain pd = ctx.allocPd()) {
      SoftSharedReceiveQueue srq = (SoftSharedReceiveQueue) pd.createSrq(SrqAttr.of(4, 1));
      srq.postRecv(chain(4, 0));
      srq.modify(new SrqAttr(8, 1, 0), SrqAttrMask.MAX_WR.value());
      assertTrue(srq.query().maxWr() >= 8);
      srq.postRecv(chain(4, 4));
      RecvWqe into = new RecvWqe();
      for (int i = 0; i < 8; i++) {
        assertTrue(srq.pop(into));
        assertEquals(i, into.wrId());
      }
      srq.close();
    }
    ctx.close();
  }

  @Test
  void fullQueueFailsWithEnomemNamingTheFirstWrNotPosted() {
    ReceiveQueue rq = new ReceiveQueue(4, 1);
    VerbsException e = assertThrows(VerbsException.class, () -> rq.post(chain(5, 0), "RQ"));
    assertEquals(Errno.ENOMEM, e.errno());
    assertEquals(4, e.badWrIndex());
    assertEquals(4, rq.size(), "the WRs before the failing one stay posted");
  }

  @Test
  void tooManySgesFailsWithEinvalNamingTheWr() {
    ReceiveQueue rq = new ReceiveQueue(4, 1);
    RecvWr bad = new RecvWr().wrId(9).sgList(new Sge(1, 1, 1), new Sge(2, 1, 1));
    RecvWr list = new RecvWr().wrId(8).sgList(new Sge(1, 1, 1)).next(bad);
    VerbsException e = assertThrows(VerbsException.class, () -> rq.post(list, "RQ"));
    assertEquals(Errno.EINVAL, e.errno());
    assertEquals(1, e.badWrIndex());
    assertTrue(e.getMessage().contains("num_sge=2") && e.getMessage().contains("max_recv_sge=1"), e.getMessage());
    assertEquals(1, rq.size());
  }

  @Test
  void postedWrsAreCopiedSoTheWrObjectIsReusable() {
    ReceiveQueue rq = new ReceiveQueue(4, 2);
    RecvWr wr = new RecvWr().wrId(1).sgList(new Sge(0x10, 8, 3), new Sge(0x20, 16, 3));
    rq.post(wr, "RQ");
    wr.wrId(2).sgList(new Sge(0x30, 4, 5));
    rq.post(wr, "RQ");
    RecvWqe into = new RecvWqe();
    rq.pop(into);
    assertEquals(1, into.wrId());
    assertEquals(2, into.numSge());
    assertEquals(0x20, into.addr(1));
    assertEquals(24, into.totalLength());
    rq.pop(into);
    assertEquals(2, into.wrId());
    assertEquals(1, into.numSge());
    assertEquals(5, into.lkey(0));
  }

  @Test
  void closingAPdWithALiveSrqFailsWithEbusyNamingIt() {
    TestContext ctx = new TestContext();
    ProtectionDomain pd = ctx.allocPd();
    SoftSharedReceiveQueue srq = (SoftSharedReceiveQueue) pd.createSrq(SrqAttr.of(4, 1));
    VerbsException e = assertThrows(VerbsException.class, pd::close);
    assertEquals(Errno.EBUSY, e.errno());
    assertTrue(e.getMessage().contains("SRQ " + srq.srqNum()), e.getMessage());
    srq.close();
    pd.close();
    pd.close();
    ctx.close();
  }
}
