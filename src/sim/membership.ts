/** A node leaving or joining the cluster at a simulated time (elastic scenarios). */
export interface MembershipChange {
  node: number;
  at: number;
  event: 'down' | 'up';
}
