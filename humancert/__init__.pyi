# Generated from humancert._PUBLIC (nbs/99_package.ipynb) by `python tests/docs_site.py pyi`; do not edit.
# `import humancert` imports each public name on first use (PEP 562); this stub shows them to IDEs and type checkers.
__version__: str

from .data.annotations import (
    Annotations as Annotations,
    hard_predictions as hard_predictions,
    soft_predictions as soft_predictions,
    check_annotations as check_annotations,
    LEVELS as LEVELS,
)
from .agreement.measures import (
    Agreement as Agreement,
    PairwiseAgreement as PairwiseAgreement,
    AgreementSummary as AgreementSummary,
    item_agreement as item_agreement,
    percent_agreement as percent_agreement,
    fleiss_kappa as fleiss_kappa,
    krippendorff_alpha as krippendorff_alpha,
    pairwise_agreement as pairwise_agreement,
    cohen_kappa_pairwise as cohen_kappa_pairwise,
    agreement_summary as agreement_summary,
    UndefinedAgreementError as UndefinedAgreementError,
    AnnotatorAgreement as AnnotatorAgreement,
    annotator_agreement as annotator_agreement,
)
from .agreement.clusters import (
    cluster_codes as cluster_codes,
    dense_codes as dense_codes,
    resample_weights as resample_weights,
    resample_indices as resample_indices,
    cluster_variance as cluster_variance,
    ratio_variance as ratio_variance,
    id_prefix as id_prefix,
    looks_clustered as looks_clustered,
)
from .agreement.coefficients import (
    cohen_kappa as cohen_kappa,
    cohen_kappa_mean as cohen_kappa_mean,
    gwet_ac as gwet_ac,
    brennan_prediger as brennan_prediger,
    conger_kappa as conger_kappa,
    scott_pi as scott_pi,
    agreement_weights as agreement_weights,
)
from .data.datasets import (
    DATASETS as DATASETS,
    Dataset as Dataset,
    load as load,
)
from .data.imports import (
    LabelStudioExport as LabelStudioExport,
    read_label_studio as read_label_studio,
)
from .data.eval_tools import (
    EVAL_LAYOUTS as EVAL_LAYOUTS,
    EvalFile as EvalFile,
    read_eval as read_eval,
)
from .data.profiles import (
    Profiles as Profiles,
    profiles as profiles,
)
from .data.tables import (
    profiles_from_table as profiles_from_table,
)
from .agreement.at_scale import (
    annotator_agreement_from_table as annotator_agreement_from_table,
    agreement_summary_from_table as agreement_summary_from_table,
)
from .data.simulate import (
    Simulation as Simulation,
    simulate_oracle_labels as simulate_oracle_labels,
    noisy_labels as noisy_labels,
)
from .certification.upper import (
    Bound as Bound,
    upper_terms as upper_terms,
    upper_bound as upper_bound,
)
from .certification.lower import (
    aggregate as aggregate,
    lower_bound as lower_bound,
)
from .certification.finite import (
    hoeffding_slack as hoeffding_slack,
    hoeffding_delta as hoeffding_delta,
    upper_bound_at as upper_bound_at,
    lower_bound_at as lower_bound_at,
)
from .certification.certify import (
    Confidence as Confidence,
    confidence as confidence,
    Certificate as Certificate,
    certify as certify,
)
from .certification.assumptions import (
    AssumptionReport as AssumptionReport,
    check_assumptions as check_assumptions,
    table4_inequalities as table4_inequalities,
)
from .certification.gold import (
    OracleAccuracy as OracleAccuracy,
    oracle_accuracy as oracle_accuracy,
)
from .certification.gold_certificate import (
    GoldCertificate as GoldCertificate,
    certify_with_gold as certify_with_gold,
    gold_learning_curve as gold_learning_curve,
)
from .certification.known_oracle import (
    KnownOracleStudy as KnownOracleStudy,
    known_oracle_study as known_oracle_study,
)
from .sparse_agreement.spa import (
    WEIGHTINGS as WEIGHTINGS,
    SPA as SPA,
    spa as spa,
    spa_weights as spa_weights,
)
from .sparse_agreement.spa_variance import (
    item_agreement_variance as item_agreement_variance,
)
from .sparse_agreement.spa_experiments import (
    SPAVarianceStudy as SPAVarianceStudy,
    spa_variance_study as spa_variance_study,
)
from .survey.scoring import (
    SCORERS as SCORERS,
    ClassifierScore as ClassifierScore,
    classifier_score as classifier_score,
    item_scores as item_scores,
    agreement_score as agreement_score,
    f1_score as f1_score,
    cross_entropy_score as cross_entropy_score,
    auc_score as auc_score,
    dmi_score as dmi_score,
    pearson_score as pearson_score,
    spearman_score as spearman_score,
    plurality_distribution as plurality_distribution,
    SCALE_SCORERS as SCALE_SCORERS,
)
from .survey.combiners import (
    COMBINERS as COMBINERS,
    Combiner as Combiner,
    Plurality as Plurality,
    Majority as Majority,
    Frequency as Frequency,
    AnonymousBayesian as AnonymousBayesian,
    make_combiner as make_combiner,
    RATING_COMBINERS as RATING_COMBINERS,
    RatingCombiner as RatingCombiner,
)
from .survey.power_curve import (
    PowerCurve as PowerCurve,
    power_curve as power_curve,
    ZeroProbabilityError as ZeroProbabilityError,
)
from .survey.survey_equivalence import (
    SurveyEquivalence as SurveyEquivalence,
    survey_equivalence as survey_equivalence,
    equivalence as equivalence,
    cross_panel_curve as cross_panel_curve,
    expert_equivalence as expert_equivalence,
)
from .survey.calibration import (
    calibrate_isotonic as calibrate_isotonic,
    calibrate_by_group as calibrate_by_group,
)
from .certification.tails import (
    LOWER_TAILS as LOWER_TAILS,
    UPPER_TAILS as UPPER_TAILS,
    lower_tail_delta as lower_tail_delta,
    upper_tail_delta as upper_tail_delta,
    lower_limit as lower_limit,
    upper_limit as upper_limit,
)
from .certification.planner import (
    StudyPlan as StudyPlan,
    plan_study as plan_study,
    GoldPlan as GoldPlan,
    plan_gold_study as plan_gold_study,
    plan_gold_procedures as plan_gold_procedures,
    GoldProcedurePlan as GoldProcedurePlan,
    GOLD_PLAN_TESTS as GOLD_PLAN_TESTS,
    sign_test_power as sign_test_power,
    gold_discordance_bound as gold_discordance_bound,
    plan_informative_design as plan_informative_design,
    InformativeDesignPlan as InformativeDesignPlan,
)
from .survey.abc_theory import (
    posterior_predictive as posterior_predictive,
    state_mixture_curve as state_mixture_curve,
)
from .survey.reference_panels import (
    panel_matrix as panel_matrix,
    panel_scale as panel_scale,
    NoiseSimulation as NoiseSimulation,
    uniform_noise as uniform_noise,
    hscore_star as hscore_star,
    state_equivalence as state_equivalence,
    seq_by_reference as seq_by_reference,
)
from .report.reporting import (
    Report as Report,
    make_report as make_report,
    bounds_by_annotators as bounds_by_annotators,
    dataset_case as dataset_case,
    report_from_table as report_from_table,
)
from .report.doctor import (
    Doctor as Doctor,
    doctor as doctor,
)
from .certification.gold_power import (
    GOLD_TESTS as GOLD_TESTS,
    GoldTest as GoldTest,
    gold_test as gold_test,
)
from .certification.proxy_betting import (
    latent_proxy as latent_proxy,
    proxy_betting_confidence as proxy_betting_confidence,
)
from .certification.control_betting import (
    control_terms as control_terms,
    control_betting_confidence as control_betting_confidence,
)
from .certification.gold_sequence import (
    GoldSequence as GoldSequence,
    SequentialCertificate as SequentialCertificate,
)
from .certification.active_gold import (
    next_gold_items as next_gold_items,
    certify_active as certify_active,
    ActiveCertificate as ActiveCertificate,
    ActiveDesign as ActiveDesign,
    active_design as active_design,
    InformativeDesign as InformativeDesign,
    informative_design as informative_design,
)
from .data.panel import (
    Panel as Panel,
    read_panel as read_panel,
)
from .judges.alt_test import (
    AltTest as AltTest,
    AltTests as AltTests,
    alt_test as alt_test,
)
from .judges.board import (
    JudgeBoard as JudgeBoard,
    compare_judges as compare_judges,
)
from .judges.consistency import (
    JudgeConsistency as JudgeConsistency,
    judge_consistency as judge_consistency,
    majority_of_runs as majority_of_runs,
    RunsAsJudge as RunsAsJudge,
    runs_as_judge as runs_as_judge,
)
from .judges.juries import (
    jury as jury,
    EffectiveJudges as EffectiveJudges,
    effective_judges as effective_judges,
)
from .judges.pairs import (
    JudgePairs as JudgePairs,
    judge_pairs as judge_pairs,
)
from .judges.bias import (
    JudgeBias as JudgeBias,
    judge_bias as judge_bias,
)
from .system_score.corrected_score import (
    CorrectedScore as CorrectedScore,
    corrected_score as corrected_score,
)
from .system_score.compare import (
    ScoreComparison as ScoreComparison,
    compare_scores as compare_scores,
)
from .system_score.budget import (
    ScoreBudget as ScoreBudget,
    score_budget as score_budget,
)
from .system_score.sequence import (
    ScoreSequence as ScoreSequence,
    SequentialScore as SequentialScore,
)
from .pairwise.judgements import (
    Pairwise as Pairwise,
    read_pairwise as read_pairwise,
    PositionConsistency as PositionConsistency,
    position_consistency as position_consistency,
    PreferenceAgreement as PreferenceAgreement,
    preference_agreement as preference_agreement,
    tie_half_score as tie_half_score,
)
from .pairwise.ranking import (
    SystemRanking as SystemRanking,
    rank_systems as rank_systems,
)
from .ceiling.iaa import (
    simulate_annotators as simulate_annotators,
    iaa_experiment1 as iaa_experiment1,
    iaa_experiment2 as iaa_experiment2,
    experiment1_summary as experiment1_summary,
    experiment2_table as experiment2_table,
    iaa_general as iaa_general,
    iaa_certification as iaa_certification,
)

__all__ = [
    'Annotations',
    'hard_predictions',
    'soft_predictions',
    'check_annotations',
    'Agreement',
    'PairwiseAgreement',
    'AgreementSummary',
    'item_agreement',
    'percent_agreement',
    'fleiss_kappa',
    'krippendorff_alpha',
    'pairwise_agreement',
    'cohen_kappa_pairwise',
    'agreement_summary',
    'UndefinedAgreementError',
    'AnnotatorAgreement',
    'annotator_agreement',
    'DATASETS',
    'Dataset',
    'load',
    'LabelStudioExport',
    'read_label_studio',
    'EVAL_LAYOUTS',
    'EvalFile',
    'read_eval',
    'Profiles',
    'profiles',
    'profiles_from_table',
    'annotator_agreement_from_table',
    'Simulation',
    'simulate_oracle_labels',
    'noisy_labels',
    'Bound',
    'upper_terms',
    'upper_bound',
    'aggregate',
    'lower_bound',
    'hoeffding_slack',
    'hoeffding_delta',
    'upper_bound_at',
    'lower_bound_at',
    'Confidence',
    'confidence',
    'Certificate',
    'certify',
    'AssumptionReport',
    'check_assumptions',
    'table4_inequalities',
    'OracleAccuracy',
    'oracle_accuracy',
    'KnownOracleStudy',
    'known_oracle_study',
    'WEIGHTINGS',
    'SPA',
    'spa',
    'spa_weights',
    'item_agreement_variance',
    'SPAVarianceStudy',
    'spa_variance_study',
    'simulate_annotators',
    'iaa_experiment1',
    'iaa_experiment2',
    'experiment1_summary',
    'experiment2_table',
    'iaa_general',
    'iaa_certification',
    'SCORERS',
    'ClassifierScore',
    'classifier_score',
    'item_scores',
    'agreement_score',
    'f1_score',
    'cross_entropy_score',
    'auc_score',
    'dmi_score',
    'pearson_score',
    'spearman_score',
    'COMBINERS',
    'Combiner',
    'Plurality',
    'Majority',
    'Frequency',
    'AnonymousBayesian',
    'make_combiner',
    'PowerCurve',
    'power_curve',
    'SurveyEquivalence',
    'survey_equivalence',
    'equivalence',
    'cross_panel_curve',
    'expert_equivalence',
    'calibrate_isotonic',
    'calibrate_by_group',
    'LOWER_TAILS',
    'UPPER_TAILS',
    'lower_tail_delta',
    'upper_tail_delta',
    'lower_limit',
    'upper_limit',
    'StudyPlan',
    'plan_study',
    'posterior_predictive',
    'state_mixture_curve',
    'plurality_distribution',
    'ZeroProbabilityError',
    'panel_matrix',
    'panel_scale',
    'NoiseSimulation',
    'uniform_noise',
    'hscore_star',
    'state_equivalence',
    'seq_by_reference',
    'Report',
    'make_report',
    'bounds_by_annotators',
    'dataset_case',
    'LEVELS',
    'cohen_kappa',
    'cohen_kappa_mean',
    'gwet_ac',
    'brennan_prediger',
    'conger_kappa',
    'scott_pi',
    'agreement_weights',
    'SCALE_SCORERS',
    'RATING_COMBINERS',
    'RatingCombiner',
    'AltTest',
    'AltTests',
    'alt_test',
    'JudgeBoard',
    'compare_judges',
    'CorrectedScore',
    'corrected_score',
    'ScoreComparison',
    'compare_scores',
    'ScoreBudget',
    'score_budget',
    'ScoreSequence',
    'SequentialScore',
    'GoldCertificate',
    'certify_with_gold',
    'gold_learning_curve',
    'GoldPlan',
    'plan_gold_study',
    'agreement_summary_from_table',
    'report_from_table',
    'Doctor',
    'doctor',
    'cluster_codes',
    'dense_codes',
    'resample_weights',
    'resample_indices',
    'cluster_variance',
    'ratio_variance',
    'id_prefix',
    'looks_clustered',
    'plan_gold_procedures',
    'GoldProcedurePlan',
    'GOLD_TESTS',
    'GoldTest',
    'gold_test',
    'latent_proxy',
    'proxy_betting_confidence',
    'control_terms',
    'control_betting_confidence',
    'GoldSequence',
    'SequentialCertificate',
    'next_gold_items',
    'certify_active',
    'ActiveCertificate',
    'Panel',
    'read_panel',
    'ActiveDesign',
    'active_design',
    'InformativeDesign',
    'informative_design',
    'GOLD_PLAN_TESTS',
    'sign_test_power',
    'gold_discordance_bound',
    'plan_informative_design',
    'InformativeDesignPlan',
    'JudgeConsistency',
    'judge_consistency',
    'majority_of_runs',
    'RunsAsJudge',
    'runs_as_judge',
    'jury',
    'EffectiveJudges',
    'effective_judges',
    'JudgePairs',
    'judge_pairs',
    'JudgeBias',
    'judge_bias',
    'Pairwise',
    'read_pairwise',
    'PositionConsistency',
    'position_consistency',
    'PreferenceAgreement',
    'preference_agreement',
    'tie_half_score',
    'SystemRanking',
    'rank_systems',
]
