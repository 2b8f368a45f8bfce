"""URLs, grouped by the stage that serves them (names are what templates and pages use)."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from annotator.access.login import LockoutAuthenticationForm, TokenApi
from annotator.compiling import apis as compiling_apis
from annotator.compiling import files as compiling_files
from annotator.compiling import views as compiling_views
from annotator.intake import apis as intake_apis
from annotator.intake import views as intake_views
from annotator.marking import apis as marking_apis
from annotator.marking import views as marking_views
from annotator.marking.assist import apis as assist_apis
from annotator.processing import apis as processing_apis
from annotator.processing import files
from annotator.processing.cvaa import apis as cvaa_apis
from annotator.projects import apis as project_apis
from annotator.projects import views as project_views
from review.dashboards import project_views as project_dashboard_views
from review.dashboards import views as dashboard_views
from review.releasing import apis as releasing_apis
from review.releasing import views as releasing_views
from review.reviewing import adjudication_views, record_views, settings_views
from review.reviewing import apis as reviewing_apis
from review.reviewing import views as reviewing_views
from review.scoring import apis as scoring_apis
from review.scoring import views as scoring_views

api = [
    path("api/auth/token/", TokenApi.as_view(), name="api-token"),
    # intake
    # projects
    path("api/projects/", project_apis.ProjectListApi.as_view(), name="api-projects"),
    path("api/projects/<int:project_id>/", project_apis.ProjectDetailApi.as_view(), name="api-project"),
    path(
        "api/projects/<int:project_id>/members/", project_apis.ProjectMembersApi.as_view(), name="api-project-members"
    ),
    path(
        "api/projects/<int:project_id>/assignments/",
        project_apis.ProjectAssignmentsApi.as_view(),
        name="api-project-assignments",
    ),
    path("api/scenes/<int:scene_id>/reassign/", project_apis.SceneReassignApi.as_view(), name="api-scene-reassign"),
    path("api/scenes/", intake_apis.SceneListApi.as_view(), name="api-scenes"),
    path("api/scenes/<int:scene_id>/", intake_apis.SceneDetailApi.as_view(), name="api-scene"),
    path("api/scenes/telemetry-preview/", intake_apis.TelemetryPreviewApi.as_view(), name="api-telemetry-preview"),
    path(
        "api/scenes/<int:scene_id>/assignments/",
        intake_apis.SceneAssignmentsApi.as_view(),
        name="api-scene-assignments",
    ),
    path(
        "api/satellite/<int:image_id>/convert/", intake_apis.SatelliteConvertApi.as_view(), name="api-satellite-convert"
    ),
    # processing
    path("api/scenes/<int:scene_id>/jobs/", processing_apis.SceneJobsApi.as_view(), name="api-scene-jobs"),
    path(
        "api/scenes/<int:scene_id>/keyframes/",
        processing_apis.SceneKeyframesApi.as_view(),
        name="api-scene-keyframes",
    ),
    path(
        "api/scenes/<int:scene_id>/telemetry/",
        processing_apis.SceneTelemetryApi.as_view(),
        name="api-scene-telemetry",
    ),
    path("api/jobs/<int:job_id>/retry/", processing_apis.MediaJobRetryApi.as_view(), name="api-job-retry"),
    path("api/scenes/<int:scene_id>/cvaa/", cvaa_apis.SceneCvaaApi.as_view(), name="api-scene-cvaa"),
    path(
        "api/scenes/<int:scene_id>/cvaa/previews/",
        cvaa_apis.SceneCvaaPreviewsApi.as_view(),
        name="api-scene-cvaa-previews",
    ),
    path("api/cvaa/checkpoints/", cvaa_apis.CvaaCheckpointListApi.as_view(), name="api-cvaa-checkpoints"),
    path(
        "api/cvaa/checkpoints/<int:checkpoint_id>/activate/",
        cvaa_apis.CvaaCheckpointActivateApi.as_view(),
        name="api-cvaa-checkpoint-activate",
    ),
    path("api/cvaa/trainings/", cvaa_apis.CvaaTrainingListApi.as_view(), name="api-cvaa-trainings"),
    # marking
    path("api/scenes/<int:scene_id>/marks/", marking_apis.SceneMarksApi.as_view(), name="api-scene-marks"),
    path("api/marks/<int:mark_id>/", marking_apis.MarkDetailApi.as_view(), name="api-mark"),
    path("api/marks/<int:mark_id>/confirm/", assist_apis.MarkConfirmApi.as_view(), name="api-mark-confirm"),
    path("api/marks/<int:mark_id>/track/", assist_apis.MarkTrackApi.as_view(), name="api-mark-track"),
    path("api/scenes/<int:scene_id>/tracks/", assist_apis.SceneTracksApi.as_view(), name="api-scene-tracks"),
    path(
        "api/scenes/<int:scene_id>/tracks/batch/",
        assist_apis.SceneTracksBatchApi.as_view(),
        name="api-scene-tracks-batch",
    ),
    path("api/tracks/<int:track_id>/", assist_apis.TrackApi.as_view(), name="api-track"),
    path("api/tracks/<int:track_id>/cancel/", assist_apis.TrackCancelApi.as_view(), name="api-track-cancel"),
    # compiling
    path("api/items/", compiling_apis.ItemListApi.as_view(), name="api-items"),
    path("api/items/check/", compiling_apis.ItemCheckApi.as_view(), name="api-items-check"),
    path("api/items/preview/", compiling_apis.ItemPreviewApi.as_view(), name="api-items-preview"),
    path("api/items/bulk/", compiling_apis.ItemBulkApi.as_view(), name="api-items-bulk"),
    path("api/items/<int:item_id>/", compiling_apis.ItemDetailApi.as_view(), name="api-item"),
    path("api/items/<int:item_id>/submit/", compiling_apis.ItemSubmitApi.as_view(), name="api-item-submit"),
    path("api/items/<int:item_id>/recompile/", compiling_apis.ItemRecompileApi.as_view(), name="api-item-recompile"),
    path("api/items/<int:item_id>/effort/", compiling_apis.ItemEffortApi.as_view(), name="api-item-effort"),
    path(
        "api/scenes/<int:scene_id>/items/compile-all/",
        compiling_apis.SceneCompileAllApi.as_view(),
        name="api-scene-compile-all",
    ),
    path("api/items/<int:item_id>/revise/", compiling_apis.ItemReviseApi.as_view(), name="api-item-revise"),
    path("api/items/<int:item_id>/withdraw/", compiling_apis.ItemWithdrawApi.as_view(), name="api-item-withdraw"),
    # reviewing
    path("api/review/queue/", reviewing_apis.ReviewQueueApi.as_view(), name="api-review-queue"),
    path("api/review/items/<int:item_id>/", reviewing_apis.ReviewItemApi.as_view(), name="api-review-item"),
    path("api/review/items/<int:item_id>/answer/", reviewing_apis.ReviewAnswerApi.as_view(), name="api-review-answer"),
    path("api/reviews/", reviewing_apis.ReviewListApi.as_view(), name="api-reviews"),
    path(
        "api/reviews/<int:review_id>/decision/",
        reviewing_apis.ReviewDecisionApi.as_view(),
        name="api-review-decision",
    ),
    path("api/review/reasons/", reviewing_apis.ReasonListApi.as_view(), name="api-review-reasons"),
    path("api/review/adjudication/", reviewing_apis.AdjudicationQueueApi.as_view(), name="api-adjudication-queue"),
    path(
        "api/review/adjudication/<int:item_id>/",
        reviewing_apis.AdjudicationItemApi.as_view(),
        name="api-adjudication-item",
    ),
    path("api/review/items/<int:item_id>/audit/", reviewing_apis.ItemAuditApi.as_view(), name="api-item-audit"),
    path("api/review/items/<int:item_id>/gold/", reviewing_apis.GoldItemApi.as_view(), name="api-item-gold"),
    path(
        "api/review/items/<int:item_id>/assignments/",
        reviewing_apis.AssignmentApi.as_view(),
        name="api-item-assignments",
    ),
    # releasing
    path("api/releases/", releasing_apis.ReleaseListApi.as_view(), name="api-releases"),
    path("api/releases/<str:version>/", releasing_apis.ReleaseDetailApi.as_view(), name="api-release"),
    path("api/releases/<str:version>/retry/", releasing_apis.ReleaseRetryApi.as_view(), name="api-release-retry"),
    path("api/releases/<str:version>/abandon/", releasing_apis.ReleaseAbandonApi.as_view(), name="api-release-abandon"),
    # scoring
    path("api/releases/<str:version>/submissions/", scoring_apis.SubmissionListApi.as_view(), name="api-submissions"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

pages = [
    path("", dashboard_views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(authentication_form=LockoutAuthenticationForm), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("projects/", project_views.project_list, name="projects"),
    path("projects/<int:project_id>/", project_views.project_detail, name="project-detail"),
    path("projects/<int:project_id>/assignments/", project_views.project_assignments, name="project-assignments"),
    path(
        "projects/<int:project_id>/dashboard/",
        project_dashboard_views.project_dashboard,
        name="project-dashboard",
    ),
    path("scenes/upload/", intake_views.scene_upload, name="scene-upload"),
    path("scenes/<int:scene_id>/", intake_views.scene_detail, name="scene-detail"),
    path("scenes/<int:scene_id>/workspace/", marking_views.workspace, name="workspace"),
    path("compiling/audit/", compiling_views.audit_page, name="items-audit"),
    path("compiling/effort/", compiling_views.effort_page, name="items-effort"),
    path("review/", reviewing_views.review_queue_page, name="review-queue"),
    path("review/next/", reviewing_views.review_next_page, name="review-next"),
    path("review/items/<int:item_id>/", reviewing_views.review_item_page, name="review-item"),
    path("review/adjudication/", adjudication_views.adjudication_queue_page, name="adjudication-queue"),
    path("review/adjudication/<int:item_id>/", adjudication_views.adjudication_item_page, name="adjudication-item"),
    path("review/dashboard/", dashboard_views.review_dashboard, name="review-dashboard"),
    path("review/me/", dashboard_views.my_stats, name="my-stats"),
    path("review/settings/", settings_views.review_settings_page, name="review-settings"),
    path("items/", record_views.items_admin_page, name="review-items"),
    path("items/<int:item_id>/record/", record_views.item_record_page, name="item-record"),
    path("items/<int:item_id>/gold/", record_views.item_gold_page, name="item-gold"),
    path("items/<int:item_id>/assign/", record_views.item_assign_page, name="item-assign"),
    path("releases/", releasing_views.releases_page, name="releases"),
    path(
        "releases/<str:version>/build/<str:action>/", releasing_views.release_build_action, name="release-build-action"
    ),
    re_path(r"^releases/(?P<version>[^/]+)\.zip$", releasing_views.release_archive, name="release-archive"),
    path("releases/<str:version>/leaderboard/", scoring_views.leaderboard_page, name="leaderboard"),
    path(
        "releases/<str:version>/leaderboard/<int:submission_id>/log.jsonl",
        scoring_views.submission_log,
        name="submission-log",
    ),
    path("releases/<str:version>/datasheet/", releasing_views.release_datasheet, name="release-datasheet"),
    path("releases/<str:version>/<path:filename>", releasing_views.release_file, name="release-file"),
    path("media/scenes/<int:scene_id>/video", files.scene_video, name="scene-video"),
    path("media/scenes/<int:scene_id>/<str:asset>", files.scene_asset, name="scene-asset"),
    path("media/satellite/<int:image_id>", files.satellite_file, name="satellite-file"),
    path("media/satellite/<int:image_id>/tiles/<path:tile_path>", files.satellite_tile, name="satellite-tile"),
    path("media/keyframes/<int:video_id>/<int:index>.jpg", files.keyframe_file, name="keyframe-file"),
    path("media/items/<int:item_id>/view/<str:name>", compiling_files.model_view_file, name="model-view-file"),
    path("django-admin/", admin.site.urls),
]

urlpatterns = api + pages
