package distributed

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tessera-go/tessera/sched/distributed/pb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Identity is a client's first call: it answers what the scheduler is,
// and fails for a client whose token or certificate the scheduler
// refuses.
func (svc *schedService) Identity(ctx context.Context, _ *pb.IdentityRequest) (*pb.IdentityReply, error) {
	s := svc.s
	if err := s.admit(ctx, RoleClient, "an identity call"); err != nil {
		return nil, err
	}
	r := &pb.IdentityReply{Address: s.Addr(), StatusAddress: s.StatusAddr()}
	if err := s.locked("an identity call", func() { r.Workers = int32(len(s.live)) }); err != nil {
		return nil, err
	}
	return r, nil
}

// identityTimeout bounds Connect's identity call.
const identityTimeout = 30 * time.Second

// checkIdentity makes the identity call, so that Connect fails at once
// (an error wrapping ErrUnauthenticated) when the scheduler refuses this
// client's token or certificate, as Dask's Client fails at construction.
// A scheduler without the call (an older one) is let be.
func checkIdentity(ctx context.Context, sc pb.SchedulerClient) error {
	ictx, cancel := context.WithTimeout(ctx, identityTimeout)
	defer cancel()
	_, err := sc.Identity(ictx, &pb.IdentityRequest{})
	if err == nil || status.Code(err) == codes.Unimplemented {
		return nil
	}
	if e := unauthenticated(err); errors.Is(e, ErrUnauthenticated) {
		return e
	}
	return fmt.Errorf("identity call: %w", err)
}
