package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertEinvalNaming;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrno;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Conformance of completion queues ({@code ibv_create_cq}, {@code ibv_resize_cq}, {@code
 * ibv_poll_cq}, overrun): §6 scenarios 3, 4 and 56, and §4.1. Subclass it and return your {@link
 * KitEnvironment}; see {@link AbstractConformance}.
 */
public abstract class CompletionQueueConformance extends AbstractConformance {

  /** Scenario 3: cqe ∈ {1, max_cqe/2, max_cqe} with each valid comp_vector; cqe() ≥ requested. */
  @Test
  public void cqCreationAcceptsSizesUpToMaxCqeAndEveryCompVector() {
    oneSided(p -> {
      DeviceAttr d = p.ctx().queryDevice();
      int vectors = Math.min(2, d.numCompVectors());
      for (int cqe : new int[] {1, Math.max(1, d.maxCqe() / 2), d.maxCqe()}) {
        for (int vector = 0; vector < vectors; vector++) {
          try (CompletionQueue cq = p.ctx().createCq(cqe, null, vector)) {
            assertTrue(cq.cqe() >= cqe, "cqe " + cq.cqe() + " < requested " + cqe);
          }
        }
      }
    });
  }

  /** Scenario 3: cqe = max_cqe + 1 and comp_vector ≥ num_comp_vectors fail with EINVAL naming them. */
  @Test
  public void cqCreationBeyondMaxCqeOrCompVectorsFailsWithEinval() {
    oneSided(p -> {
      DeviceAttr d = p.ctx().queryDevice();
      assertEinvalNaming("cqe", () -> p.ctx().createCq(d.maxCqe() + 1, null, 0));
      assertEinvalNaming("comp_vector", () -> p.ctx().createCq(1, null, d.numCompVectors()));
      assertEinvalNaming("comp_vector", () -> p.ctx().createCq(1, null, d.numCompVectors() + 1));
    });
  }

  /**
   * Scenario 4: UD with CQ depth 3; resize to 1 and 7; six sends without polling; resize to 1
   * fails with EINVAL (success is tolerated, as in pyverbs); all six completions poll as SUCCESS.
   */
  @Test
  public void resizeKeepsUnpolledCompletions() {
    twoSided("resizeKeepsUnpolledCompletionsBody");
  }

  /**
   * Body of {@link #resizeKeepsUnpolledCompletions()}.
   *
   * @param p the rank
   */
  public void resizeKeepsUnpolledCompletionsBody(Peer p) {
    UdResources.Options o = p.rank() == 0 ? UdResources.options().cqDepth(3).separateCqs(true) : UdResources.options();
    try (UdResources u = new UdResources(p, o).exchangeInfo()) {
      CompletionQueue cq = u.sendCq();
      if (p.rank() == 0) {
        assertTrue(cq.cqe() >= 3);
        cq.resize(1);
        assertTrue(cq.cqe() >= 1);
        cq.resize(7);
        assertTrue(cq.cqe() >= 7, "cqe after resize(7): " + cq.cqe());
      } else {
        for (int i = 0; i < 6; i++) {
          u.postRecv(i);
        }
      }
      p.barrier("recvs-posted");
      if (p.rank() == 0) {
        for (int i = 0; i < 6; i++) {
          u.qp().postSend(u.send(i, 64));
        }
      } else {
        for (WorkCompletion wc : p.pollUntil(u.recvCq(), 6)) {
          assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString);
        }
      }
      p.barrier("all-received");
      if (p.rank() == 0) {
        try {
          cq.resize(1);
        } catch (VerbsException e) {
          assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
        }
        List<WorkCompletion> wcs = p.pollUntil(cq, 6);
        for (int i = 0; i < 6; i++) {
          assertWc(wcs.get(i), i, WcStatus.SUCCESS, WcOpcode.SEND, u.qp().qpNum());
        }
      }
    }
  }

  /**
   * Scenario 56: more completions than the CQ holds without polling raise exactly one CQ_ERR
   * (element = the CQ); the QP that overflowed ends in ERR; polling the CQ then fails with EIO.
   */
  @Test
  public void cqOverrunRaisesExactlyOneCqErrAndMovesTheQpToErr() {
    twoSided("cqOverrunRaisesExactlyOneCqErrAndMovesTheQpToErrBody");
  }

  /**
   * Body of {@link #cqOverrunRaisesExactlyOneCqErrAndMovesTheQpToErr()}.
   *
   * @param p the rank
   */
  public void cqOverrunRaisesExactlyOneCqErrAndMovesTheQpToErrBody(Peer p) {
    RcResources.Options o = p.rank() == 0 ? RcResources.options().cqDepth(4) : RcResources.options();
    try (RcResources r = new RcResources(p, o).connect()) {
      int n = (int) p.exchange("count", r.cq().cqe() + 2)[0];
      int mine = r.cq().cqe() + 2;
      int sends = p.rank() == 0 ? mine : n;
      Assumptions.assumeTrue(sends <= 900, "the device rounds cqe=4 up to " + (sends - 2) + "; too many WRs");
      if (p.rank() == 1) {
        for (int i = 0; i < sends; i++) {
          r.postRecv(i);
        }
      }
      p.barrier("recvs-posted");
      if (p.rank() == 0) {
        for (int i = 0; i < sends; i++) {
          r.qp().postSend(r.send(i, 0));
        }
        AsyncEvent ev = p.awaitAsyncEvent(AsyncEventType.CQ_ERR, p.timeout());
        assertSame(r.cq(), ev.cq(), "CQ_ERR names the CQ that overran");
        assertEquals(List.of(), p.asyncEvents(AsyncEventType.CQ_ERR, Peer.QUIET), "exactly one CQ_ERR");
        p.awaitState(r.qp(), QpState.ERR);
        assertErrno(Errno.EIO, () -> r.cq().poll(WorkCompletion.array(4)));
      }
      p.barrier("done");
    }
  }

  /** §4.1: destroy_cq fails with EBUSY while a QP uses the CQ; poll on a closed CQ fails with EBADF. */
  @Test
  public void closingACqInUseFailsWithEbusyAndAClosedCqCannotBePolled() {
    oneSided(p -> {
      try (RcResources r = new RcResources(p, RcResources.options())) {
        assertErrno(Errno.EBUSY, r.cq()::close);
      }
      CompletionQueue cq = p.ctx().createCq(4, null, 0);
      cq.close();
      cq.close();
      assertErrno(Errno.EBADF, () -> cq.poll(WorkCompletion.array(1)));
    });
  }
}
