// What the sign-in gives the other features: a sign-in's end (a session, or the second step it asks)
// and a provider's flow (login.ts, flow.ts).
export { challengeAdmin, challengeOwnFactors, signIn } from './login';
export { providerFlow } from './flow';
