export { startFakeRdap, FAKE_TLDS } from './fake-rdap';
export type {
  FakeBehaviour,
  FakeNameState,
  FakeRdap,
  FakeRegistryKind,
  FakeRequest,
} from './fake-rdap';
