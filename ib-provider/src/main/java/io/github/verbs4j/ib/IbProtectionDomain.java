package io.github.verbs4j.ib;

import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.spi.AbstractProtectionDomain;
import io.github.verbs4j.verbs.spi.AbstractQueuePair;
import io.github.verbs4j.verbs.spi.SoftMemoryRegion;
import io.github.verbs4j.verbs.spi.SoftSharedReceiveQueue;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;

/** A protection domain of {@code sim_ib0}: creates the provider's QPs, regions and SRQs. */
final class IbProtectionDomain extends AbstractProtectionDomain {
  private static final Set<QpType> TYPES = EnumSet.of(QpType.RC, QpType.UC, QpType.UD, QpType.DCI, QpType.DCT);

  IbProtectionDomain(IbContext context, int handle) {
    super(context, handle);
  }

  IbContext ib() {
    return (IbContext) context;
  }

  @Override
  protected Set<QpType> supportedQpTypes() {
    return TYPES;
  }

  @Override
  protected AbstractQueuePair newQp(QpInitAttr attr) {
    IbContext ctx = ib();
    int qpn = ctx.engine().allocateQpn();
    try {
      QpCap req = attr.cap();
      boolean hasRq = attr.srq() == null && attr.qpType() != QpType.DCI && attr.qpType() != QpType.DCT;
      // The queues hold at least what was asked (ibv_create_qp returns the actual values).
      QpCap actual = QpCap.builder()
          .maxSendWr(attr.qpType() == QpType.DCT ? 0 : Math.max(1, req.maxSendWr()))
          .maxRecvWr(hasRq ? Math.max(1, req.maxRecvWr()) : 0)
          .maxSendSge(attr.qpType() == QpType.DCT ? 0 : Math.max(1, req.maxSendSge()))
          .maxRecvSge(hasRq ? Math.max(1, req.maxRecvSge()) : 0)
          .maxInlineData(req.maxInlineData())
          .build();
      return new IbQueuePair(this, attr, qpn, actual);
    } catch (RuntimeException e) {
      ctx.engine().releaseQpn(qpn);
      throw e;
    }
  }

  @Override
  protected SoftMemoryRegion newMr(ByteBuffer memory, long address, int accessMask, MemoryKind kind) {
    return new IbMemoryRegion(this, memory, address, accessMask, kind);
  }

  @Override
  protected SoftSharedReceiveQueue newSrq(SrqAttr attr, int srqNum) {
    return new IbSharedReceiveQueue(this, attr, srqNum);
  }
}
