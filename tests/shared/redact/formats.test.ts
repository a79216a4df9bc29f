import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskToken, redact } from '../../../shared/redact.js';
import { containsSecret } from '../../../shared/secret-detect.js';
import { SECRET_FORMATS } from '../../../shared/redact/formats.js';
import { matchedFormat, PREFIX_RE } from '../../../shared/redact/prefixes.js';

// The credential-format corpus: for every format the redactor knows, one real-shaped sample that
// must be masked and one near miss (a prose word or identifier with the same prefix, a too-short
// body, a placeholder) that must come back unchanged.
//
// Samples are fake. They are assembled at run time from a prefix and a pseudo-random body, so this
// file never holds a literal that a repository secret scanner would flag.

// A fixed-seed generator (Numerical Recipes LCG): bodies look random but are the same every run.
let seed = 0x5eed1234;
function rand(charset: string, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    out += charset.charAt((seed >>> 8) % charset.length);
  }
  return out;
}

const DIGIT = '0123456789';
const HEX = '0123456789abcdef';
const HEX_UP = '0123456789ABCDEF';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALPHA = LOWER + UPPER;
const ALNUM = ALPHA + DIGIT;
const ALNUM_ = ALNUM + '_-';
const LOWER_NUM = LOWER + DIGIT;
const UPPER_NUM = UPPER + DIGIT;
const B64 = ALNUM + '+/';
const BECH32 = 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L';
const uuid = (): string => `${rand(HEX, 8)}-${rand(HEX, 4)}-${rand(HEX, 4)}-${rand(HEX, 4)}-${rand(HEX, 12)}`;
const jwtPart = (n: number): string => 'eyJ' + rand(ALNUM_, n);

interface Case {
  id: string;
  /** The real-shaped secret as it appears in output. */
  sample: string;
  /** What `sample` becomes; default maskToken(sample). */
  expected?: string;
  /** What `sample` becomes outside code, where an assignment pass reads it too; default `expected`. */
  asText?: string;
  /** Same prefix or shape, not a credential: left alone. */
  nearMiss: string;
  /** How the sample sits in text; default `found <s> here`. */
  around?: (s: string) => string;
}

/** A `value` format: `lead` is kept, only `secret` is masked. */
function kept(lead: string, secret: string): { sample: string; expected: string } {
  return { sample: lead + secret, expected: lead + maskToken(secret) };
}

const PEM_BODY = [rand(B64, 64), rand(B64, 64), rand(B64, 40) + '=='].join('\n');

const CORPUS: Case[] = [
  // Hermes' prefixes
  { id: 'openai-anthropic-key', sample: 'sk-' + 'proj-' + rand(ALNUM_, 48), nearMiss: 'pip install sk-learn' },
  { id: 'github-pat', sample: 'ghp_' + rand(ALNUM, 36), nearMiss: 'ghp_token_name' },
  { id: 'github-fine-grained-pat', sample: 'github_pat_' + rand(ALNUM, 22) + '_' + rand(ALNUM, 59), nearMiss: 'github_pat_prefix' },
  { id: 'github-oauth', sample: 'gho_' + rand(ALNUM, 36), nearMiss: 'gho_flow' },
  { id: 'github-user-to-server', sample: 'ghu_' + rand(ALNUM, 36), nearMiss: 'ghu_id' },
  { id: 'github-server-to-server', sample: 'ghs_' + rand(ALNUM, 36), nearMiss: 'ghs_ci' },
  { id: 'github-refresh-token', sample: 'ghr_' + rand(ALNUM, 36), nearMiss: 'ghr_log' },
  { id: 'slack-app-token', sample: 'xapp-' + '1-A' + rand(UPPER_NUM, 10) + '-' + rand(DIGIT, 13) + '-' + rand(HEX, 64), nearMiss: 'xapp-config' },
  { id: 'slack-token', sample: 'xox' + 'b-' + rand(DIGIT, 12) + '-' + rand(DIGIT, 13) + '-' + rand(ALNUM, 24), nearMiss: 'xoxo-hugs' },
  { id: 'gcp-api-key', sample: 'AIza' + rand(ALNUM_, 35), nearMiss: 'AIzaSyShort' },
  { id: 'perplexity-api-key', sample: 'pplx-' + rand(ALNUM, 48), nearMiss: 'pplx-api' },
  { id: 'fal-api-key', sample: 'fal_' + rand(ALNUM_, 40), nearMiss: 'fal_ai' },
  { id: 'firecrawl-api-key', sample: 'fc-' + rand(HEX, 32), nearMiss: 'fc-barcelona' },
  { id: 'browserbase-api-key', sample: 'bb_live_' + rand(ALNUM_, 27), nearMiss: 'bb_live_demo' },
  { id: 'fernet-token', sample: 'gAAAA' + rand(ALNUM_, 95) + '=', nearMiss: 'gAAAAshort' },
  { id: 'aws-access-key-id', sample: 'AKIA' + rand(UPPER_NUM, 16), nearMiss: 'AKIA' + rand(UPPER_NUM, 12) },
  { id: 'stripe-secret-live', sample: 'sk_live_' + rand(ALNUM, 24), nearMiss: 'sk_live_mode' },
  { id: 'stripe-secret-test', sample: 'sk_test_' + rand(ALNUM, 24), nearMiss: 'sk_test_env' },
  { id: 'stripe-restricted-live', sample: 'rk_live_' + rand(ALNUM, 24), nearMiss: 'rk_live_key' },
  { id: 'sendgrid-api-key', sample: 'SG.' + rand(ALNUM_, 22) + '.' + rand(ALNUM_, 43), nearMiss: 'SG.Singapore' },
  { id: 'huggingface-token', sample: 'hf_' + rand(ALPHA, 34), nearMiss: 'hf_model' },
  { id: 'replicate-api-token', sample: 'r8_' + rand(ALNUM, 37), nearMiss: 'r8_ok' },
  { id: 'npm-token', sample: 'npm_' + rand(ALNUM, 36), nearMiss: 'npm_config' },
  { id: 'pypi-token', sample: 'pypi-' + 'AgEIcHlwaS5vcmc' + rand(ALNUM_, 70), nearMiss: 'pypi-mirror' },
  { id: 'digitalocean-pat', sample: 'dop_v1_' + rand(HEX, 64), nearMiss: 'dop_v1_test' },
  { id: 'digitalocean-oauth', sample: 'doo_v1_' + rand(HEX, 64), nearMiss: 'doo_v1_abc' },
  // Hermes' 10-character floor: `am_understanding` is masked as Hermes masks it; shorter is not.
  { id: 'agentmail-api-key', sample: 'am_' + rand(ALNUM, 32), nearMiss: 'am_shortword' },
  { id: 'elevenlabs-api-key', sample: 'sk_' + rand(HEX, 48), nearMiss: 'sk_cache' },
  { id: 'tavily-api-key', sample: 'tvly-' + rand(ALNUM, 32), nearMiss: 'tvly-dev' },
  { id: 'exa-api-key', sample: 'exa_' + rand(ALNUM, 32), nearMiss: 'exa_search' },
  { id: 'groq-api-key', sample: 'gsk_' + rand(ALNUM, 52), nearMiss: 'gsk_model' },
  { id: 'matrix-access-token', sample: 'syt_' + rand(ALNUM, 30), nearMiss: 'syt_abc' },
  { id: 'retaindb-api-key', sample: 'retaindb_' + rand(ALNUM, 32), nearMiss: 'retaindb_url' },
  { id: 'hindsight-api-key', sample: 'hsk-' + rand(ALNUM, 32), nearMiss: 'hsk-level' },
  { id: 'mem0-api-key', sample: 'mem0_' + rand(ALNUM, 32), nearMiss: 'mem0_client' },
  { id: 'byterover-api-key', sample: 'brv_' + rand(ALNUM, 32), nearMiss: 'brv_cli' },
  { id: 'xai-api-key', sample: 'xai-' + rand(ALNUM, 80), nearMiss: 'xai-' + rand(ALNUM, 20) },
  { id: 'notion-api-token', sample: 'ntn_' + rand(DIGIT, 11) + rand(ALNUM, 35), nearMiss: 'ntn_page' },
  { id: 'fireworks-api-key-dash', sample: 'fw-' + rand(ALNUM, 40), nearMiss: 'fw-' + rand(ALNUM, 12) },
  { id: 'fireworks-api-key', sample: 'fw_' + rand(ALNUM, 40), nearMiss: 'fw_' + rand(ALNUM, 12) },
  { id: 'fireworks-project-key', sample: 'fpk_' + rand(ALNUM, 40), nearMiss: 'fpk_' + rand(ALNUM, 12) },

  // Newer Hermes' GitLab and Langfuse prefixes, at their 10-character (Langfuse: 8) floor or above;
  // a shorter body, or the prefix glued to a word, is none.
  { id: 'gitlab-pat', sample: 'glpat-' + rand(ALNUM_, 20), nearMiss: 'glpat_example_name' },
  { id: 'gitlab-oauth-app-secret', sample: 'gloas-' + rand(ALNUM_, 64), nearMiss: 'gloas-short' },
  { id: 'gitlab-deploy-token', sample: 'gldt-' + rand(ALNUM_, 10), nearMiss: 'gldt-config' },
  { id: 'gitlab-runner-token', sample: 'glrt-' + 't1_' + rand(ALNUM_, 27) + '.01.' + rand(LOWER_NUM, 7), nearMiss: 'glrt-runner' },
  { id: 'gitlab-runner-registration-token-routable', sample: 'glrtr-' + rand(ALNUM_, 12) + '.01.' + rand(LOWER_NUM, 7), nearMiss: 'glrtr-v2' },
  { id: 'gitlab-cicd-job-token', sample: 'glcbt-' + '64_' + rand(ALNUM_, 20), nearMiss: 'glcbt-job' },
  { id: 'gitlab-pipeline-trigger-token', sample: 'glptt-' + rand(HEX, 40), nearMiss: 'glptt-short' },
  { id: 'gitlab-feed-token', sample: 'glft-' + rand(ALNUM_, 20), nearMiss: 'glft-feed' },
  { id: 'gitlab-incoming-mail-token', sample: 'glimt-' + rand(ALNUM_, 25), nearMiss: 'glimt-mail' },
  { id: 'gitlab-agent-token', sample: 'glagent-' + rand(ALNUM_, 50), nearMiss: 'glagent-name' },
  { id: 'gitlab-service-account-token', sample: 'glsoat-' + rand(ALNUM_, 20), nearMiss: 'glsoat-id' },
  { id: 'gitlab-feature-flag-token', sample: 'glffct-' + rand(ALNUM_, 20), nearMiss: 'glffct-flag' },
  { id: 'gitlab-workspace-token', sample: 'glwt-' + rand(ALNUM_, 10), nearMiss: 'myglwt-' + rand(ALNUM_, 12) },
  { id: 'gitlab-runner-registration-token', sample: 'GR1348941' + rand(ALNUM_, 20), nearMiss: 'GR1348941abc' },
  { id: 'langfuse-public-key', sample: 'pk-lf-' + uuid(), nearMiss: 'pk-lf-1234' },

  // Source control
  { id: 'bitbucket-app-password', sample: 'ATBB' + rand(ALNUM, 28) + rand(HEX_UP, 8), nearMiss: 'ATBB-meeting' },
  { id: 'atlassian-api-token', sample: 'ATATT3' + rand(ALNUM_, 186), nearMiss: 'ATATT3short' },
  { id: 'sourcegraph-access-token', sample: 'sgp_' + rand(HEX, 16) + '_' + rand(HEX, 40), nearMiss: 'sgp_local_dev' },

  // Cloud
  { id: 'aws-sts-access-key-id', sample: 'ASIA' + rand('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16), nearMiss: 'ASIAPACIFIC' },
  {
    id: 'aws-secret-access-key',
    ...kept('aws_secret_access_key = ', rand(B64, 40)),
    // Outside code, newer Hermes' any-case `_key` pass reads the line too (a strong name): `***`.
    asText: 'aws_secret_access_key=***',
    nearMiss: 'the aws_secret_access_key setting',
    around: (s) => `[default]\naws_access_key_id = example\n${s}\n`,
  },
  { id: 'gcp-oauth-client-secret', sample: 'GOCSPX-' + rand(ALNUM_, 28), nearMiss: 'GOCSPX-short' },
  { id: 'google-oauth-access-token', sample: 'ya29.' + rand(ALNUM_, 150), nearMiss: 'ya29.abc' },
  { id: 'azure-ad-client-secret', sample: rand(ALNUM, 3) + '8Q~' + rand(ALNUM, 34), nearMiss: 'abc8Q~short' },
  {
    id: 'azure-storage-account-key',
    ...kept('AccountKey=', rand(B64, 86) + '=='),
    nearMiss: 'AccountKey=' + rand(B64, 20),
    around: (s) => `DefaultEndpointsProtocol=https;AccountName=demo;${s};EndpointSuffix=core.windows.net`,
  },
  {
    id: 'azure-shared-access-key',
    ...kept('SharedAccessKey=', rand(B64, 43) + '='),
    nearMiss: 'SharedAccessKeyName=RootManageSharedAccessKey',
    around: (s) => `Endpoint=sb://demo.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;${s}`,
  },
  { id: 'digitalocean-refresh-token', sample: 'dor_v1_' + rand(HEX, 64), nearMiss: 'dor_v1_' + rand(HEX, 10) },
  { id: 'heroku-api-key-v2', sample: 'HRKU-' + 'AA' + rand(ALNUM_, 58), nearMiss: 'HRKU-test' },
  { id: 'alibaba-access-key-id', sample: 'LTAI' + rand(ALNUM, 20), nearMiss: 'LTAI' + rand(ALNUM, 10) },
  { id: 'cloudflare-origin-ca-key', sample: 'v1.0-' + rand(HEX, 24) + '-' + rand(HEX, 146), nearMiss: 'v1.0-beta' },
  { id: 'flyio-access-token', sample: 'fo1_' + rand(ALNUM_, 43), nearMiss: 'fo1_x' },
  { id: 'flyio-macaroon', sample: 'fm2_' + rand(B64, 120), nearMiss: 'fm2_' + rand(B64, 20) },
  { id: 'supabase-access-token', sample: 'sbp_' + rand(HEX, 40), nearMiss: 'sbp_' + rand(HEX, 20) },
  { id: 'openshift-user-token', sample: 'sha256~' + rand(ALNUM_, 43), nearMiss: 'sha256~' + rand(ALNUM, 10) },
  { id: 'scalingo-api-token', sample: 'tk-us-' + rand(ALNUM_, 48), nearMiss: 'tk-us-east' },
  { id: 'databricks-api-token', sample: 'dapi' + rand(HEX, 32), nearMiss: 'dapi_client' },
  { id: 'terraform-cloud-api-token', sample: rand(ALNUM, 14) + '.atlasv1.' + rand(ALNUM_, 67), nearMiss: 'app.atlasv1.ok' },
  { id: 'pulumi-access-token', sample: 'pul-' + rand(HEX, 40), nearMiss: 'pul-' + rand(HEX, 20) },
  { id: 'planetscale-token', sample: 'pscale_tkn_' + rand(ALNUM_, 43), nearMiss: 'pscale_tkn_short' },

  // Secrets managers and encryption
  { id: 'vault-service-token', sample: 'hvs.' + rand(ALNUM_, 90), nearMiss: 'hvs.config' },
  { id: 'vault-batch-token', sample: 'hvb.' + rand(ALNUM_, 138), nearMiss: 'hvb.ok' },
  { id: 'doppler-token', sample: 'dp.pt.' + rand(ALNUM, 43), nearMiss: 'dp.pt.example' },
  { id: '1password-service-account-token', sample: 'ops_eyJ' + rand(B64, 300), nearMiss: 'ops_eyJhbGci' },
  {
    id: '1password-secret-key',
    sample: 'A3-' + rand(UPPER_NUM, 6) + '-' + rand(UPPER_NUM, 11) + '-' + rand(UPPER_NUM, 5) + '-' + rand(UPPER_NUM, 5) + '-' + rand(UPPER_NUM, 5),
    nearMiss: 'A3-PAPER-SIZE',
  },
  { id: 'age-secret-key', sample: 'AGE-SECRET-KEY-1' + rand(BECH32, 58), nearMiss: 'AGE-SECRET-KEY-1EXAMPLE' },

  // CI
  { id: 'circleci-token', sample: 'CCIPAT_' + rand(ALNUM, 22) + '_' + rand(HEX, 40), nearMiss: 'CCIPAT_example' },
  { id: 'buildkite-api-token', sample: 'bkua_' + rand(HEX, 40), nearMiss: 'bkua_' + rand(HEX, 10) },
  { id: 'octopus-deploy-api-key', sample: 'API-' + rand(UPPER_NUM, 26), nearMiss: 'API-GATEWAY-V2' },
  { id: 'sonarqube-token', sample: 'squ_' + rand(HEX, 40), nearMiss: 'squ_ad' },
  { id: 'prefect-api-key', sample: 'pnu_' + rand(ALNUM, 36), nearMiss: 'pnu_' + rand(ALNUM, 10) },

  // Chat
  { id: 'slack-config-token', sample: 'xoxe.xoxp-1-' + rand(ALNUM, 163), nearMiss: 'xoxe-1-short' },
  {
    id: 'slack-webhook-url',
    ...kept('https://hooks.slack.com/services/', 'T' + rand(UPPER_NUM, 8) + '/B' + rand(UPPER_NUM, 10) + '/' + rand(ALNUM, 24)),
    nearMiss: 'hooks.slack.com/services/T000/B000/XXXX',
  },
  {
    id: 'discord-webhook-url',
    ...kept('https://discord.com/api/webhooks/' + rand(DIGIT, 18) + '/', rand(ALNUM_, 68)),
    nearMiss: 'https://discord.com/api/webhooks/{id}/{token}',
  },
  {
    id: 'microsoft-teams-webhook-url',
    ...kept('https://contoso.webhook.office.com/webhookb2/', `${uuid()}@${uuid()}/IncomingWebhook/${rand(HEX, 32)}/${uuid()}`),
    nearMiss: 'https://contoso.webhook.office.com/webhookb2/',
  },
  { id: 'matrix-synapse-access-token', sample: 'syt_' + 'YWxpY2U' + '_' + rand(ALPHA, 20) + '_' + rand(ALNUM, 6), nearMiss: 'syt_user_name' },
  { id: 'twilio-api-key', sample: 'SK' + rand(HEX, 32), nearMiss: 'SKU12345' },
  { id: 'twilio-account-sid', sample: 'AC' + rand(HEX, 32), nearMiss: 'ACME' },

  // Payment and commerce
  { id: 'stripe-restricted-test', sample: 'rk_test_' + rand(ALNUM, 24), nearMiss: 'rk_test_mode' },
  { id: 'stripe-webhook-secret', sample: 'whsec_' + rand(ALNUM, 32), nearMiss: 'whsec_test' },
  { id: 'square-access-token', sample: 'EAAA' + rand(ALNUM_, 60), nearMiss: 'EAAAshort' },
  { id: 'square-legacy-token', sample: 'sq0atp-' + rand(ALNUM_, 22), nearMiss: 'sq0atp-x' },
  {
    id: 'paypal-braintree-access-token',
    sample: 'access_token$production$' + rand(LOWER_NUM, 16) + '$' + rand(HEX, 32),
    nearMiss: 'access_token$production${merchant}',
  },
  { id: 'flutterwave-secret-key', sample: 'FLWSECK_TEST-' + rand('abcdefgh0123456789', 32) + '-X', nearMiss: 'FLWSECK_TEST-abc-X' },
  { id: 'shopify-access-token', sample: 'shpat_' + rand(HEX, 32), nearMiss: 'shpat_token' },
  { id: 'shopify-custom-access-token', sample: 'shpca_' + rand(HEX, 32), nearMiss: 'shpca_' + rand(HEX, 16) },
  { id: 'shopify-private-app-token', sample: 'shppa_' + rand(HEX, 32), nearMiss: 'shppa_' + rand(HEX, 16) },
  { id: 'shopify-shared-secret', sample: 'shpss_' + rand(HEX, 32), nearMiss: 'shpss_secret' },
  { id: 'duffel-api-token', sample: 'duffel_test_' + rand(ALNUM_, 43), nearMiss: 'duffel_test_mode' },
  { id: 'easypost-api-key', sample: 'EZAK' + rand(ALNUM, 54), nearMiss: 'EZAK' + rand(ALNUM, 10) },
  { id: 'shippo-api-token', sample: 'shippo_live_' + rand(HEX, 40), nearMiss: 'shippo_live_key' },
  { id: 'facebook-page-access-token', sample: 'EAAM' + rand(ALNUM, 120), nearMiss: 'EAAC' + rand(ALNUM, 20) },

  // E-mail
  { id: 'mailgun-api-key', sample: 'key-' + rand(HEX, 32), nearMiss: 'key-value' },
  { id: 'mailchimp-api-key', sample: rand(HEX, 32) + '-us' + '12', nearMiss: rand(HEX, 31) + '-us6' },
  { id: 'brevo-api-key', sample: 'xkeysib-' + rand(HEX, 64) + '-' + rand(ALNUM, 16), nearMiss: 'xkeysib-demo' },
  { id: 'resend-api-key', sample: 're_' + rand(ALNUM, 8) + '_' + rand(ALNUM, 24), nearMiss: 're_compile_cache' },
  { id: 'postmark-server-token', ...kept('X-Postmark-Server-Token: ', uuid()), nearMiss: 'set the X-Postmark-Server-Token header' },

  // Package registries
  { id: 'rubygems-api-token', sample: 'rubygems_' + rand(HEX, 48), nearMiss: 'rubygems_org' },
  { id: 'nuget-api-key', sample: 'oy2' + rand(LOWER_NUM, 43), nearMiss: 'oy2short' },
  { id: 'dockerhub-token', sample: 'dckr_pat_' + rand(ALNUM_, 27), nearMiss: 'dckr_pat_x' },
  { id: 'clojars-api-token', sample: 'CLOJARS_' + rand(LOWER_NUM, 60), nearMiss: 'CLOJARS_USERNAME' },
  { id: 'crates-io-api-token', sample: 'cio' + rand(ALNUM, 32), nearMiss: 'cioRegistryName' },
  { id: 'artifactory-api-key', sample: 'AKCp' + rand(ALNUM, 69), nearMiss: 'AKCp' + rand(ALNUM, 10) },

  // AI and developer SaaS
  { id: 'huggingface-org-token', sample: 'api_org_' + rand(ALPHA, 34), nearMiss: 'api_org_name' },
  { id: 'langsmith-api-key', sample: 'lsv2_pt_' + rand(HEX, 32) + '_' + rand(HEX, 10), nearMiss: 'lsv2_pt_x' },
  { id: 'pinecone-api-key', sample: 'pcsk_' + rand(ALNUM, 6) + '_' + rand(ALNUM, 60), nearMiss: 'pcsk_config' },
  { id: 'linear-api-key', sample: 'lin_api_' + rand(ALNUM, 40), nearMiss: 'lin_api_key' },
  { id: 'notion-legacy-token', sample: 'secret_' + rand(ALNUM, 43), nearMiss: 'secret_key_base' },
  { id: 'airtable-pat', sample: 'pat' + rand(ALNUM, 14) + '.' + rand(HEX, 64), nearMiss: 'patch.apply' },
  { id: 'figma-pat', sample: 'figd_' + rand(ALNUM_, 40), nearMiss: 'figd_x' },
  { id: 'typeform-pat', sample: 'tfp_' + rand(ALNUM_, 59), nearMiss: 'tfp_form' },
  { id: 'hubspot-private-app-token', sample: 'pat-na1-' + uuid(), nearMiss: 'pat-na1-demo' },
  { id: 'contentful-pat', sample: 'CFPAT-' + rand(ALNUM_, 43), nearMiss: 'CFPAT-demo' },
  { id: 'postman-api-key', sample: 'PMAK-' + rand(HEX, 24) + '-' + rand(HEX, 34), nearMiss: 'PMAK-' + rand(HEX, 24) },
  { id: 'readme-api-key', sample: 'rdme_' + rand(LOWER_NUM, 70), nearMiss: 'rdme_demo' },
  { id: 'infracost-api-key', sample: 'ico-' + rand(ALNUM, 32), nearMiss: 'ico-font' },
  { id: 'frameio-api-token', sample: 'fio-u-' + rand(ALNUM_, 64), nearMiss: 'fio-u-x' },
  { id: 'mapbox-secret-token', sample: 'sk.eyJ1' + rand(ALNUM_, 60) + '.' + rand(ALNUM_, 22), nearMiss: 'sk.eyJ1short' },
  { id: 'twitter-bearer-token', sample: 'A'.repeat(22) + rand(ALNUM, 90), nearMiss: 'A'.repeat(22) + 'short' },
  { id: 'posthog-personal-api-key', sample: 'phx_' + rand(ALNUM, 43), nearMiss: 'phx_click' },

  // Observability
  { id: 'new-relic-user-api-key', sample: 'NRAK-' + rand(UPPER_NUM, 27), nearMiss: 'NRAK-demo' },
  { id: 'new-relic-insert-key', sample: 'NRII-' + rand(ALNUM_, 32), nearMiss: 'NRII-x' },
  { id: 'new-relic-license-key', sample: rand(HEX, 36) + 'NRAL', nearMiss: rand(HEX, 20) + 'NRAL' },
  { id: 'sentry-org-token', sample: 'sntrys_eyJ' + rand(B64, 100) + '_' + rand(B64, 43), nearMiss: 'sntrys_x' },
  { id: 'sentry-user-token', sample: 'sntryu_' + rand(HEX, 64), nearMiss: 'sntryu_x' },
  { id: 'grafana-cloud-token', sample: 'glc_' + rand(B64, 100) + '=', nearMiss: 'glc_config' },
  { id: 'grafana-service-account-token', sample: 'glsa_' + rand(ALNUM, 32) + '_' + rand(HEX, 8), nearMiss: 'glsa_admin' },
  { id: 'dynatrace-api-token', sample: 'dt0c01.' + rand(UPPER_NUM, 24) + '.' + rand(UPPER_NUM, 64), nearMiss: 'dt0c01.x' },

  // Structural formats: their own passes, not the table
  {
    id: 'private-key-rsa',
    sample: `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\n-----END RSA PRIVATE KEY-----`,
    expected: '[REDACTED PRIVATE KEY]',
    nearMiss: `-----BEGIN PUBLIC KEY-----\n${rand(B64, 64)}\n-----END PUBLIC KEY-----`,
    around: (s) => `key:\n${s}\ndone`,
  },
  {
    id: 'private-key-openssh',
    sample: `-----BEGIN OPENSSH PRIVATE KEY-----\n${PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----`,
    expected: '[REDACTED PRIVATE KEY]',
    nearMiss: 'ssh-ed25519 ' + rand(B64, 68) + ' user@host',
    around: (s) => `key:\n${s}\ndone`,
  },
  {
    id: 'private-key-pgp',
    sample: `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${PEM_BODY}\n=${rand(B64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----`,
    expected: '[REDACTED PRIVATE KEY]',
    nearMiss: `-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n${rand(B64, 64)}\n-----END PGP PUBLIC KEY BLOCK-----`,
    around: (s) => `key:\n${s}\ndone`,
  },
  { id: 'jwt', sample: `${jwtPart(33)}.${jwtPart(40)}.${rand(ALNUM_, 43)}`, nearMiss: 'eyJabc' },
  { id: 'basic-auth-url', sample: 'https://deploy:' + rand(ALNUM, 16) + '@git.example.com/o/r.git', expected: 'https://deploy:***@git.example.com/o/r.git', nearMiss: 'https://deploy@git.example.com/o/r.git' },
  { id: 'basic-auth-url-ftp', sample: 'ftp://backup:' + rand(ALNUM, 12) + '@files.example.com/', expected: 'ftp://backup:***@files.example.com/', nearMiss: 'https://files.example.com:8443/p?mail=a@b.example' },
  { id: 'postgres-url', sample: 'postgresql://app:' + rand(ALNUM, 14) + '@db:5432/app', expected: 'postgresql://app:***@db:5432/app', nearMiss: 'postgresql://localhost:5432/app' },
  { id: 'mysql-url', sample: 'mysql://root:' + rand(ALNUM, 10) + '@127.0.0.1:3306/app', expected: 'mysql://root:***@127.0.0.1:3306/app', nearMiss: 'mysql://127.0.0.1:3306/app' },
  { id: 'mongodb-srv-url', sample: 'mongodb+srv://admin:' + rand(ALNUM, 12) + '@cluster0.example.net/db', expected: 'mongodb+srv://admin:***@cluster0.example.net/db', nearMiss: 'mongodb+srv://cluster0.example.net/db' },
  { id: 'redis-url', sample: 'redis://:' + rand(ALNUM, 16) + '@cache:6379/0', expected: 'redis://:***@cache:6379/0', nearMiss: 'redis://cache:6379/0' },
  { id: 'amqp-url', sample: 'amqps://worker:' + rand(ALNUM, 16) + '@mq.example.com/vhost', expected: 'amqps://worker:***@mq.example.com/vhost', nearMiss: 'amqps://mq.example.com/vhost' },
  { id: 'url-bare-token', sample: 'https://' + rand(ALNUM, 24) + '@gitlab.example.com/o/r.git', nearMiss: 'ssh://git@github.com/o/r' },
  { id: 'telegram-bot-token', sample: 'bot' + rand(DIGIT, 10) + ':' + 'AA' + rand(ALNUM_, 33), nearMiss: '1234567890:short' },
];

// URL-shaped samples keep everything but the secret, which `kept`/`expected` spell out; the
// bare-token URL keeps the scheme and host.
for (const c of CORPUS) {
  if (c.id === 'url-bare-token') {
    const token = c.sample.slice('https://'.length, c.sample.indexOf('@'));
    c.expected = 'https://' + maskToken(token) + c.sample.slice(c.sample.indexOf('@'));
  }
  if (c.id === 'telegram-bot-token') c.expected = c.sample.slice(0, c.sample.indexOf(':') + 1) + '***';
}

const around = (c: Case, s: string): string => (c.around ?? ((x: string) => `found ${x} here`))(s);
const TABLE_IDS = new Set(SECRET_FORMATS.map((f) => f.id));

test('the corpus covers at least 60 formats and every format in the table', () => {
  const ids = CORPUS.map((c) => c.id);
  assert.equal(new Set(ids).size, ids.length, 'one case per format');
  assert.ok(ids.length >= 60, `${ids.length} formats`);
  const missing = SECRET_FORMATS.filter((f) => !ids.includes(f.id)).map((f) => f.id);
  assert.deepEqual(missing, [], 'every table format has a corpus case');
});

test('every sample is redacted, in output and in code-file mode, and redaction is idempotent', () => {
  for (const c of CORPUS) {
    const text = around(c, c.sample);
    const want = around(c, c.expected ?? maskToken(c.sample));
    const wantAsText = around(c, c.asText ?? c.expected ?? maskToken(c.sample));
    assert.notEqual(want, text, c.id);
    assert.equal(redact(text), wantAsText, c.id);
    assert.equal(redact(text, { codeFile: true }), want, `${c.id} (codeFile)`);
    assert.equal(redact(wantAsText), wantAsText, `${c.id}: idempotent`);
    assert.equal(redact(want, { codeFile: true }), want, `${c.id}: idempotent (codeFile)`);
    assert.equal(containsSecret(text), true, c.id);
  }
});

test('every near miss is left alone', () => {
  for (const c of CORPUS) {
    const text = around(c, c.nearMiss);
    assert.equal(redact(text), text, `${c.id}: ${c.nearMiss}`);
    assert.equal(containsSecret(text), false, c.id);
  }
});

test("a table format's sample is recognised as that format, and contains its gate literal", () => {
  for (const c of CORPUS.filter((x) => TABLE_IDS.has(x.id))) {
    const format = SECRET_FORMATS.find((f) => f.id === c.id)!;
    assert.ok(c.sample.includes(format.literal), `${c.id}: literal ${format.literal}`);
    PREFIX_RE.lastIndex = 0;
    const m = PREFIX_RE.exec(around(c, c.sample));
    assert.ok(m?.groups, c.id);
    assert.equal(matchedFormat(m.groups)?.id, c.id);
  }
});

test('GitLab routable personal access tokens are masked whole', () => {
  const routable = 'glpat-' + rand(ALNUM_, 36) + '.01.' + rand(LOWER_NUM, 7);
  assert.equal(redact(`token ${routable}.`), `token ${maskToken(routable)}.`);
});
