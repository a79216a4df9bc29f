// The credential formats pass 1 of shared/redact.ts recognises by their shape: one entry per format.
//
// Hermes' own list (`agent/redact.py` `_PREFIX_PATTERNS`) comes first, marked `origin: 'hermes'`:
// the union of every supported Hermes' list (0.19's 41 patterns, and the 15 GitLab and Langfuse
// patterns and the dotted `sk-` body newer Hermes added), so a key either version masks is masked. The `gateway` entries widen it to the providers that the default rule sets of the
// common secret scanners cover (gitleaks' default config, secretlint's recommended preset): source
// control, cloud, CI, chat, payment, e-mail, package registries and the like. Formats that are not
// a single token (private key blocks, JWTs, URLs with a password, Telegram bot tokens, header
// values) are dedicated passes in patterns.ts instead, because they mask differently.
//
// Rules for an entry, checked by tests/shared/redact-formats.test.ts (samples) and
// tests/shared/redact-linear.test.ts (structure and timing):
//   - `literal` occurs in every match (the cheap gate searches for it, so a gate can skip work but
//     never hide a secret);
//   - `pattern` is linear: no unbounded quantifier on a group that itself holds one (nested
//     quantifiers), and gateway entries use bounded quantifiers only. Every attempt starts at the
//     beginning of a token run (the shared lead guard in prefixes.ts), so a long run is scanned
//     once, not once per character;
//   - plain capture groups are not allowed (`(?:…)` only): the compiler numbers its own groups.
//
// Masking follows Hermes' `_mask_token` convention (mask.ts): `token` masks the whole match (first
// 6 + last 4 characters kept from 18 characters up, else `***`); `value` keeps `lead` (a URL or a
// key name that is not itself secret) and masks only what follows it the same way.

type SecretCategory =
  | 'ai'
  | 'source-control'
  | 'cloud'
  | 'ci'
  | 'chat'
  | 'payment'
  | 'email'
  | 'package-registry'
  | 'database'
  | 'secrets-manager'
  | 'observability'
  | 'saas'
  | 'encryption';

interface FormatBase {
  /** Stable identifier (gitleaks' rule id where there is one). */
  readonly id: string;
  readonly provider: string;
  readonly category: SecretCategory;
  readonly origin: 'hermes' | 'gateway';
  /** A literal every match contains: the gate. */
  readonly literal: string;
}

export type SecretFormat =
  | (FormatBase & { readonly mask: 'token'; readonly pattern: string })
  | (FormatBase & { readonly mask: 'value'; readonly lead: string; readonly pattern: string });

const HEX = '[a-f0-9]';
const UUID = `${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}`;

function hermes(id: string, provider: string, category: SecretCategory, literal: string, pattern: string): SecretFormat {
  return { id, provider, category, origin: 'hermes', literal, mask: 'token', pattern };
}

function token(id: string, provider: string, category: SecretCategory, literal: string, pattern: string): SecretFormat {
  return { id, provider, category, origin: 'gateway', literal, mask: 'token', pattern };
}

function value(id: string, provider: string, category: SecretCategory, literal: string, lead: string, pattern: string): SecretFormat {
  return { id, provider, category, origin: 'gateway', literal, mask: 'value', lead, pattern };
}

const r = String.raw;

export const SECRET_FORMATS: readonly SecretFormat[] = [
  // -------------------------------------------------------------------------------------------
  // Hermes `_PREFIX_RE`, in Hermes' order. Bodies stay open-ended as in Hermes (a single class
  // after a literal, so still linear): an OpenAI or Fernet token has no fixed upper length.
  // -------------------------------------------------------------------------------------------
  // 0.19 reads `sk-[A-Za-z0-9_-]{10,}`; newer Hermes also takes single dots inside the body
  // (Alibaba's `sk-sp-…`/`sk-ws-…` keys), never `..` and never a trailing dot, so a head/tail mask
  // (`sk-pro...EFGH`) is not matched again. Each repeated unit is one character with an optional dot
  // before it: bounded inside, so the unbounded repeat over it stays linear.
  hermes('openai-anthropic-key', 'OpenAI / OpenRouter / Anthropic', 'ai', 'sk-', r`sk-[A-Za-z0-9_-](?:\.?[A-Za-z0-9_-]){9,}`),
  hermes('github-pat', 'GitHub', 'source-control', 'ghp_', r`ghp_[A-Za-z0-9]{10,}`),
  hermes('github-fine-grained-pat', 'GitHub', 'source-control', 'github_pat_', r`github_pat_[A-Za-z0-9_]{10,}`),
  hermes('github-oauth', 'GitHub', 'source-control', 'gho_', r`gho_[A-Za-z0-9]{10,}`),
  hermes('github-user-to-server', 'GitHub', 'source-control', 'ghu_', r`ghu_[A-Za-z0-9]{10,}`),
  hermes('github-server-to-server', 'GitHub', 'source-control', 'ghs_', r`ghs_[A-Za-z0-9]{10,}`),
  hermes('github-refresh-token', 'GitHub', 'source-control', 'ghr_', r`ghr_[A-Za-z0-9]{10,}`),
  hermes('slack-app-token', 'Slack', 'chat', 'xapp-', r`xapp-\d+-[A-Za-z0-9-]{10,}`),
  hermes('slack-token', 'Slack', 'chat', 'xox', r`xox[baprs]-[A-Za-z0-9-]{10,}`),
  hermes('gcp-api-key', 'Google', 'cloud', 'AIza', r`AIza[A-Za-z0-9_-]{30,}`),
  hermes('perplexity-api-key', 'Perplexity', 'ai', 'pplx-', r`pplx-[A-Za-z0-9]{10,}`),
  hermes('fal-api-key', 'Fal.ai', 'ai', 'fal_', r`fal_[A-Za-z0-9_-]{10,}`),
  hermes('firecrawl-api-key', 'Firecrawl', 'ai', 'fc-', r`fc-[A-Za-z0-9]{10,}`),
  hermes('browserbase-api-key', 'BrowserBase', 'ai', 'bb_live_', r`bb_live_[A-Za-z0-9_-]{10,}`),
  hermes('fernet-token', 'Fernet / Codex encrypted content', 'encryption', 'gAAAA', r`gAAAA[A-Za-z0-9_=-]{20,}`),
  hermes('aws-access-key-id', 'AWS', 'cloud', 'AKIA', r`AKIA[A-Z0-9]{16}`),
  hermes('stripe-secret-live', 'Stripe', 'payment', 'sk_live_', r`sk_live_[A-Za-z0-9]{10,}`),
  hermes('stripe-secret-test', 'Stripe', 'payment', 'sk_test_', r`sk_test_[A-Za-z0-9]{10,}`),
  hermes('stripe-restricted-live', 'Stripe', 'payment', 'rk_live_', r`rk_live_[A-Za-z0-9]{10,}`),
  // Gateway: real SendGrid keys are `SG.<id>.<secret>`; Hermes' single-segment pattern stops at
  // the second dot and leaves the secret half visible, so the second segment is included.
  hermes('sendgrid-api-key', 'SendGrid', 'email', 'SG.', r`SG\.[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]+)?`),
  hermes('huggingface-token', 'Hugging Face', 'ai', 'hf_', r`hf_[A-Za-z0-9]{10,}`),
  hermes('replicate-api-token', 'Replicate', 'ai', 'r8_', r`r8_[A-Za-z0-9]{10,}`),
  hermes('npm-token', 'npm', 'package-registry', 'npm_', r`npm_[A-Za-z0-9]{10,}`),
  hermes('pypi-token', 'PyPI', 'package-registry', 'pypi-', r`pypi-[A-Za-z0-9_-]{10,}`),
  hermes('digitalocean-pat', 'DigitalOcean', 'cloud', 'dop_v1_', r`dop_v1_[A-Za-z0-9]{10,}`),
  hermes('digitalocean-oauth', 'DigitalOcean', 'cloud', 'doo_v1_', r`doo_v1_[A-Za-z0-9]{10,}`),
  // 0.19's shape, kept: newer Hermes narrows it to `am_(?:org_)?[A-Za-z0-9]{20,}` (so that
  // `am_example_identifier_123` is no key), a subset of this one; the gateway masks what either masks.
  hermes('agentmail-api-key', 'AgentMail', 'email', 'am_', r`am_[A-Za-z0-9_-]{10,}`),
  hermes('elevenlabs-api-key', 'ElevenLabs', 'ai', 'sk_', r`sk_[A-Za-z0-9_]{10,}`),
  hermes('tavily-api-key', 'Tavily', 'ai', 'tvly-', r`tvly-[A-Za-z0-9]{10,}`),
  hermes('exa-api-key', 'Exa', 'ai', 'exa_', r`exa_[A-Za-z0-9]{10,}`),
  hermes('groq-api-key', 'Groq', 'ai', 'gsk_', r`gsk_[A-Za-z0-9]{10,}`),
  hermes('matrix-access-token', 'Matrix', 'chat', 'syt_', r`syt_[A-Za-z0-9]{10,}`),
  hermes('retaindb-api-key', 'RetainDB', 'ai', 'retaindb_', r`retaindb_[A-Za-z0-9]{10,}`),
  hermes('hindsight-api-key', 'Hindsight', 'ai', 'hsk-', r`hsk-[A-Za-z0-9]{10,}`),
  hermes('mem0-api-key', 'Mem0', 'ai', 'mem0_', r`mem0_[A-Za-z0-9]{10,}`),
  hermes('byterover-api-key', 'ByteRover', 'ai', 'brv_', r`brv_[A-Za-z0-9]{10,}`),
  hermes('xai-api-key', 'xAI', 'ai', 'xai-', r`xai-[A-Za-z0-9]{30,}`),
  hermes('notion-api-token', 'Notion', 'saas', 'ntn_', r`ntn_[A-Za-z0-9]{10,}`),
  hermes('fireworks-api-key-dash', 'Fireworks', 'ai', 'fw-', r`fw-[A-Za-z0-9]{30,}`),
  hermes('fireworks-api-key', 'Fireworks', 'ai', 'fw_', r`fw_[A-Za-z0-9]{30,}`),
  hermes('fireworks-project-key', 'Fireworks', 'ai', 'fpk_', r`fpk_[A-Za-z0-9]{30,}`),
  // Newer Hermes (0.22): GitLab's token families and Langfuse's public key, in its order.
  // Gateway: a personal access token may carry GitLab's routable suffix
  // (`.<2-char version><7-char base36>`, optionally with a dot between the two), which Hermes'
  // pattern stops before (the runner tokens' class takes dots already).
  hermes('gitlab-pat', 'GitLab', 'source-control', 'glpat-', r`glpat-[A-Za-z0-9_-]{10,}(?:\.[0-9a-z]{2}\.?[0-9a-z]{7})?`),
  hermes('gitlab-oauth-app-secret', 'GitLab', 'source-control', 'gloas-', r`gloas-[A-Za-z0-9_-]{10,}`),
  hermes('gitlab-deploy-token', 'GitLab', 'source-control', 'gldt-', r`gldt-[A-Za-z0-9_-]{10,}`),
  hermes('gitlab-runner-token', 'GitLab', 'source-control', 'glrt-', r`glrt-[A-Za-z0-9_.-]{10,}`),
  hermes('gitlab-runner-registration-token-routable', 'GitLab', 'source-control', 'glrtr-', r`glrtr-[A-Za-z0-9_.-]{10,}`),
  hermes('gitlab-cicd-job-token', 'GitLab', 'source-control', 'glcbt-', r`glcbt-[A-Za-z0-9_-]{10,}`),
  hermes('gitlab-pipeline-trigger-token', 'GitLab', 'source-control', 'glptt-', r`glptt-[A-Za-z0-9_-]{10,}`),
  hermes('gitlab-feed-token', 'GitLab', 'source-control', 'glft-', r`glft-[A-Za-z0-9_-]{10,}`),
  hermes('gitlab-incoming-mail-token', 'GitLab', 'source-control', 'glimt-', r`glimt-[A-Za-z0-9_-]{10,}`),
  hermes('gitlab-agent-token', 'GitLab', 'source-control', 'glagent-', r`glagent-[A-Za-z0-9_-]{10,}`),
  hermes('gitlab-service-account-token', 'GitLab', 'source-control', 'glsoat-', r`glsoat-[A-Za-z0-9_-]{10,}`),
  hermes('gitlab-feature-flag-token', 'GitLab', 'source-control', 'glffct-', r`glffct-[A-Za-z0-9_-]{10,}`),
  hermes('gitlab-workspace-token', 'GitLab', 'source-control', 'glwt-', r`glwt-[A-Za-z0-9_-]{10,}`),
  hermes('gitlab-runner-registration-token', 'GitLab', 'source-control', 'GR1348941', r`GR1348941[A-Za-z0-9_-]{10,}`),
  hermes('langfuse-public-key', 'Langfuse', 'observability', 'pk-lf-', r`pk-lf-[A-Za-z0-9-]{8,}`),

  // -------------------------------------------------------------------------------------------
  // Gateway: source control
  // -------------------------------------------------------------------------------------------
  token('bitbucket-app-password', 'Bitbucket', 'source-control', 'ATBB', r`ATBB[A-Za-z0-9_=.-]{24,100}`),
  token('atlassian-api-token', 'Atlassian (Jira, Confluence)', 'saas', 'ATATT3', r`ATATT3[A-Za-z0-9_=-]{150,250}`),
  token('sourcegraph-access-token', 'Sourcegraph', 'source-control', 'sgp_', r`sgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}`),

  // -------------------------------------------------------------------------------------------
  // Gateway: cloud
  // -------------------------------------------------------------------------------------------
  token('aws-sts-access-key-id', 'AWS', 'cloud', 'ASIA', r`ASIA[A-Z2-7]{16}`),
  // The secret half of an AWS key pair has no prefix; its name in ~/.aws/credentials is one.
  value('aws-secret-access-key', 'AWS', 'cloud', 'aws_secret_access_key', r`aws_secret_access_key[ \t]{0,8}[=:][ \t]{0,8}["']?`, r`[A-Za-z0-9/+]{40}`),
  token('gcp-oauth-client-secret', 'Google', 'cloud', 'GOCSPX-', r`GOCSPX-[A-Za-z0-9_-]{28}`),
  token('google-oauth-access-token', 'Google', 'cloud', 'ya29.', r`ya29\.[A-Za-z0-9_-]{20,2048}`),
  token('azure-ad-client-secret', 'Microsoft Entra ID (Azure AD)', 'cloud', 'Q~', r`[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}`),
  value('azure-storage-account-key', 'Azure Storage', 'cloud', 'AccountKey=', 'AccountKey=', r`[A-Za-z0-9+/]{86}==`),
  value('azure-shared-access-key', 'Azure Service Bus / Event Hubs', 'cloud', 'SharedAccessKey=', 'SharedAccessKey=', r`[A-Za-z0-9+/]{43}=`),
  token('digitalocean-refresh-token', 'DigitalOcean', 'cloud', 'dor_v1_', r`dor_v1_[a-f0-9]{64}`),
  token('heroku-api-key-v2', 'Heroku', 'cloud', 'HRKU-', r`HRKU-[A-Za-z0-9_-]{60}`),
  token('alibaba-access-key-id', 'Alibaba Cloud', 'cloud', 'LTAI', r`LTAI[A-Za-z0-9]{20}`),
  token('cloudflare-origin-ca-key', 'Cloudflare', 'cloud', 'v1.0-', r`v1\.0-[a-f0-9]{24}-[a-f0-9]{146}`),
  token('flyio-access-token', 'Fly.io', 'cloud', 'fo1_', r`fo1_[A-Za-z0-9_-]{43}`),
  token('flyio-macaroon', 'Fly.io', 'cloud', 'fm2_', r`fm2_[A-Za-z0-9+/]{100,4096}={0,3}`),
  token('supabase-access-token', 'Supabase', 'cloud', 'sbp_', r`sbp_[a-f0-9]{40}`),
  token('openshift-user-token', 'OpenShift', 'cloud', 'sha256~', r`sha256~[A-Za-z0-9_-]{43}`),
  token('scalingo-api-token', 'Scalingo', 'cloud', 'tk-us-', r`tk-us-[A-Za-z0-9_-]{48}`),
  token('databricks-api-token', 'Databricks', 'cloud', 'dapi', r`dapi[a-f0-9]{32}(?:-\d)?`),
  token('terraform-cloud-api-token', 'HashiCorp Terraform Cloud', 'cloud', '.atlasv1.', r`[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}`),
  token('pulumi-access-token', 'Pulumi', 'cloud', 'pul-', r`pul-[a-f0-9]{40}`),
  token('planetscale-token', 'PlanetScale', 'database', 'pscale_', r`pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,64}`),

  // -------------------------------------------------------------------------------------------
  // Gateway: secrets managers and encryption
  // -------------------------------------------------------------------------------------------
  token('vault-service-token', 'HashiCorp Vault', 'secrets-manager', 'hvs.', r`hvs\.[A-Za-z0-9_-]{24,300}`),
  token('vault-batch-token', 'HashiCorp Vault', 'secrets-manager', 'hvb.', r`hvb\.[A-Za-z0-9_-]{24,400}`),
  token('doppler-token', 'Doppler', 'secrets-manager', 'dp.', r`dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9_.-]{40,200}`),
  token('1password-service-account-token', '1Password', 'secrets-manager', 'ops_eyJ', r`ops_eyJ[A-Za-z0-9+/]{250,4096}={0,3}`),
  token('1password-secret-key', '1Password', 'secrets-manager', 'A3-', r`A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}`),
  token('age-secret-key', 'age', 'encryption', 'AGE-SECRET-KEY-1', r`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`),

  // -------------------------------------------------------------------------------------------
  // Gateway: CI
  // -------------------------------------------------------------------------------------------
  token('circleci-token', 'CircleCI', 'ci', 'CCIP', r`CCIP(?:AT|RJ)_[A-Za-z0-9]{20,24}_[a-f0-9]{40}`),
  token('buildkite-api-token', 'Buildkite', 'ci', 'bkua_', r`bkua_[a-f0-9]{40}`),
  token('octopus-deploy-api-key', 'Octopus Deploy', 'ci', 'API-', r`API-[A-Z0-9]{26}`),
  token('sonarqube-token', 'SonarQube', 'ci', 'sq', r`sq[upa]_[a-f0-9]{40}`),
  token('prefect-api-key', 'Prefect', 'ci', 'pnu_', r`pnu_[A-Za-z0-9]{36}`),

  // -------------------------------------------------------------------------------------------
  // Gateway: chat
  // -------------------------------------------------------------------------------------------
  token('slack-config-token', 'Slack', 'chat', 'xoxe', r`xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{140,170}`),
  value('slack-webhook-url', 'Slack', 'chat', 'hooks.slack.com/', r`(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/`, r`[A-Za-z0-9+/]{30,120}`),
  value(
    'discord-webhook-url',
    'Discord',
    'chat',
    '/api/webhooks/',
    r`https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{17,20}/`,
    r`[A-Za-z0-9_-]{60,80}`,
  ),
  value(
    'microsoft-teams-webhook-url',
    'Microsoft Teams',
    'chat',
    '.webhook.office.com/',
    r`https://[a-z0-9-]{1,63}\.webhook\.office\.com/webhookb2/`,
    r`[A-Za-z0-9@/-]{60,300}`,
  ),
  // Synapse access tokens are `syt_<base64 user>_<20 random>_<6 crc>`; Hermes' single-run pattern
  // above stops at the first `_` and so never matches one.
  token('matrix-synapse-access-token', 'Matrix', 'chat', 'syt_', r`syt_[A-Za-z0-9]{1,64}_[A-Za-z0-9]{20}_[A-Za-z0-9]{6}`),
  token('twilio-api-key', 'Twilio', 'chat', 'SK', r`SK[0-9a-fA-F]{32}`),
  token('twilio-account-sid', 'Twilio', 'chat', 'AC', r`AC[0-9a-f]{32}`),

  // -------------------------------------------------------------------------------------------
  // Gateway: payment and commerce
  // -------------------------------------------------------------------------------------------
  token('stripe-restricted-test', 'Stripe', 'payment', 'rk_test_', r`rk_test_[A-Za-z0-9]{10,99}`),
  token('stripe-webhook-secret', 'Stripe', 'payment', 'whsec_', r`whsec_[A-Za-z0-9]{32,64}`),
  token('square-access-token', 'Square', 'payment', 'EAAA', r`EAAA[A-Za-z0-9_-]{60}`),
  token('square-legacy-token', 'Square', 'payment', 'sq0', r`sq0(?:atp-[A-Za-z0-9_-]{22}|csp-[A-Za-z0-9_-]{43})`),
  token('paypal-braintree-access-token', 'PayPal Braintree', 'payment', 'access_token$', r`access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}`),
  token('flutterwave-secret-key', 'Flutterwave', 'payment', 'FLWSECK', r`FLWSECK(?:_TEST)?-[a-h0-9]{32}-X`),
  token('shopify-access-token', 'Shopify', 'payment', 'shpat_', r`shpat_[a-fA-F0-9]{32}`),
  token('shopify-custom-access-token', 'Shopify', 'payment', 'shpca_', r`shpca_[a-fA-F0-9]{32}`),
  token('shopify-private-app-token', 'Shopify', 'payment', 'shppa_', r`shppa_[a-fA-F0-9]{32}`),
  token('shopify-shared-secret', 'Shopify', 'payment', 'shpss_', r`shpss_[a-fA-F0-9]{32}`),
  token('duffel-api-token', 'Duffel', 'payment', 'duffel_', r`duffel_(?:test|live)_[A-Za-z0-9_=-]{43}`),
  token('easypost-api-key', 'EasyPost', 'payment', 'EZ', r`EZ[AT]K[A-Za-z0-9]{54}`),
  token('shippo-api-token', 'Shippo', 'payment', 'shippo_', r`shippo_(?:live|test)_[a-fA-F0-9]{40}`),
  token('facebook-page-access-token', 'Meta', 'saas', 'EAA', r`EAA[MC][A-Za-z0-9]{100,400}`),

  // -------------------------------------------------------------------------------------------
  // Gateway: e-mail
  // -------------------------------------------------------------------------------------------
  token('mailgun-api-key', 'Mailgun', 'email', 'key-', r`key-[a-f0-9]{32}`),
  token('mailchimp-api-key', 'Mailchimp', 'email', '-us', r`[a-f0-9]{32}-us\d{1,2}`),
  token('brevo-api-key', 'Brevo (Sendinblue)', 'email', 'sib-', r`x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}`),
  token('resend-api-key', 'Resend', 'email', 're_', r`re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}`),

  // -------------------------------------------------------------------------------------------
  // Gateway: package registries and artifact stores
  // -------------------------------------------------------------------------------------------
  token('rubygems-api-token', 'RubyGems', 'package-registry', 'rubygems_', r`rubygems_[a-f0-9]{48}`),
  token('nuget-api-key', 'NuGet', 'package-registry', 'oy2', r`oy2[a-z0-9]{43}`),
  token('dockerhub-token', 'Docker Hub', 'package-registry', 'dckr_', r`dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,64}`),
  token('clojars-api-token', 'Clojars', 'package-registry', 'CLOJARS_', r`CLOJARS_[a-z0-9]{60}`),
  token('crates-io-api-token', 'crates.io', 'package-registry', 'cio', r`cio[A-Za-z0-9]{32}`),
  token('artifactory-api-key', 'JFrog Artifactory', 'package-registry', 'AKCp', r`AKCp[A-Za-z0-9]{69}`),

  // -------------------------------------------------------------------------------------------
  // Gateway: AI and developer SaaS
  // -------------------------------------------------------------------------------------------
  token('huggingface-org-token', 'Hugging Face', 'ai', 'api_org_', r`api_org_[A-Za-z]{34}`),
  token('langsmith-api-key', 'LangSmith', 'ai', 'lsv2_', r`lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}`),
  token('pinecone-api-key', 'Pinecone', 'ai', 'pcsk_', r`pcsk_[A-Za-z0-9_]{50,100}`),
  token('linear-api-key', 'Linear', 'saas', 'lin_api_', r`lin_api_[A-Za-z0-9]{40}`),
  token('notion-legacy-token', 'Notion', 'saas', 'secret_', r`secret_[A-Za-z0-9]{43}`),
  token('airtable-pat', 'Airtable', 'saas', 'pat', r`pat[A-Za-z0-9]{14}\.[a-f0-9]{64}`),
  token('figma-pat', 'Figma', 'saas', 'figd_', r`figd_[A-Za-z0-9_-]{40,43}`),
  token('typeform-pat', 'Typeform', 'saas', 'tfp_', r`tfp_[A-Za-z0-9_.=-]{59}`),
  token('hubspot-private-app-token', 'HubSpot', 'saas', 'pat-', r`pat-(?:na|eu)1-${UUID}`),
  token('contentful-pat', 'Contentful', 'saas', 'CFPAT-', r`CFPAT-[A-Za-z0-9_-]{43}`),
  token('postman-api-key', 'Postman', 'saas', 'PMAK-', r`PMAK-[a-f0-9]{24}-[a-f0-9]{34}`),
  token('readme-api-key', 'ReadMe', 'saas', 'rdme_', r`rdme_[a-z0-9]{70}`),
  token('infracost-api-key', 'Infracost', 'saas', 'ico-', r`ico-[A-Za-z0-9]{32}`),
  token('frameio-api-token', 'Frame.io', 'saas', 'fio-u-', r`fio-u-[A-Za-z0-9_=-]{64}`),
  token('mapbox-secret-token', 'Mapbox', 'saas', 'sk.eyJ', r`sk\.eyJ[A-Za-z0-9_-]{20,200}\.[A-Za-z0-9_-]{20,100}`),
  token('twitter-bearer-token', 'X (Twitter)', 'saas', 'AAAAAAAAAAAAAAAAAAAAA', r`A{22}[A-Za-z0-9%]{80,100}`),
  token('posthog-personal-api-key', 'PostHog', 'saas', 'phx_', r`phx_[A-Za-z0-9]{43}`),

  // -------------------------------------------------------------------------------------------
  // Gateway: observability
  // -------------------------------------------------------------------------------------------
  token('new-relic-user-api-key', 'New Relic', 'observability', 'NRAK-', r`NRAK-[A-Z0-9]{27}`),
  token('new-relic-insert-key', 'New Relic', 'observability', 'NRII-', r`NRII-[A-Za-z0-9_-]{32}`),
  token('new-relic-license-key', 'New Relic', 'observability', 'NRAL', r`[a-f0-9]{36}NRAL`),
  token('sentry-org-token', 'Sentry', 'observability', 'sntrys_', r`sntrys_eyJ[A-Za-z0-9+/=]{50,600}_[A-Za-z0-9+/]{43}`),
  token('sentry-user-token', 'Sentry', 'observability', 'sntryu_', r`sntryu_[a-f0-9]{64}`),
  token('grafana-cloud-token', 'Grafana', 'observability', 'glc_', r`glc_[A-Za-z0-9+/]{32,400}={0,3}`),
  token('grafana-service-account-token', 'Grafana', 'observability', 'glsa_', r`glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}`),
  token('dynatrace-api-token', 'Dynatrace', 'observability', 'dt0c01.', r`dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}`),
];
