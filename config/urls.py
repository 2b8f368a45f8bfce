from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token

from annotator import apis as annotator_apis
from annotator import media_views
from annotator import views as annotator_views
from review import apis as review_apis
from review import views as review_views

api = [
    path("api/auth/token/", obtain_auth_token, name="api-token"),
    path("api/scenes/", annotator_apis.SceneListApi.as_view(), name="api-scenes"),
    path("api/scenes/<int:scene_id>/", annotator_apis.SceneDetailApi.as_view(), name="api-scene"),
    path("api/scenes/<int:scene_id>/jobs/", annotator_apis.SceneJobsApi.as_view(), name="api-scene-jobs"),
    path(
        "api/scenes/<int:scene_id>/keyframes/", annotator_apis.SceneKeyframesApi.as_view(), name="api-scene-keyframes"
    ),
    path("api/scenes/<int:scene_id>/marks/", annotator_apis.SceneMarksApi.as_view(), name="api-scene-marks"),
    path(
        "api/scenes/<int:scene_id>/assignments/",
        annotator_apis.SceneAssignmentsApi.as_view(),
        name="api-scene-assignments",
    ),
    path(
        "api/scenes/<int:scene_id>/telemetry/", annotator_apis.SceneTelemetryApi.as_view(), name="api-scene-telemetry"
    ),
    path(
        "api/satellite/<int:image_id>/convert/",
        annotator_apis.SatelliteConvertApi.as_view(),
        name="api-satellite-convert",
    ),
    path("api/jobs/<int:job_id>/retry/", annotator_apis.MediaJobRetryApi.as_view(), name="api-job-retry"),
    path("api/marks/<int:mark_id>/", annotator_apis.MarkDetailApi.as_view(), name="api-mark"),
    path("api/items/", annotator_apis.ItemListApi.as_view(), name="api-items"),
    path("api/items/<int:item_id>/", annotator_apis.ItemDetailApi.as_view(), name="api-item"),
    path("api/items/<int:item_id>/submit/", annotator_apis.ItemSubmitApi.as_view(), name="api-item-submit"),
    path("api/review/queue/", review_apis.ReviewQueueApi.as_view(), name="api-review-queue"),
    path("api/review/items/<int:item_id>/", review_apis.ReviewItemApi.as_view(), name="api-review-item"),
    path("api/review/items/<int:item_id>/answer/", review_apis.ReviewAnswerApi.as_view(), name="api-review-answer"),
    path("api/reviews/", review_apis.ReviewListApi.as_view(), name="api-reviews"),
    path("api/reviews/<int:review_id>/decision/", review_apis.ReviewDecisionApi.as_view(), name="api-review-decision"),
    path("api/review/reasons/", review_apis.ReasonListApi.as_view(), name="api-review-reasons"),
    path("api/releases/", review_apis.ReleaseListApi.as_view(), name="api-releases"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

pages = [
    path("", annotator_views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("scenes/upload/", annotator_views.scene_upload, name="scene-upload"),
    path("scenes/<int:scene_id>/", annotator_views.scene_detail, name="scene-detail"),
    path("scenes/<int:scene_id>/workspace/", annotator_views.workspace, name="workspace"),
    path("review/", review_views.review_queue_page, name="review-queue"),
    path("review/items/<int:item_id>/", review_views.review_item_page, name="review-item"),
    path("releases/", review_views.releases_page, name="releases"),
    path("releases/<str:version>/<str:filename>", review_views.release_file, name="release-file"),
    path("media/scenes/<int:scene_id>/video", media_views.scene_video, name="scene-video"),
    path("media/scenes/<int:scene_id>/<str:asset>", media_views.scene_asset, name="scene-asset"),
    path("media/satellite/<int:image_id>", media_views.satellite_file, name="satellite-file"),
    path("media/satellite/<int:image_id>/tiles/<path:tile_path>", media_views.satellite_tile, name="satellite-tile"),
    path("media/keyframes/<int:video_id>/<int:index>.jpg", media_views.keyframe_file, name="keyframe-file"),
    path("django-admin/", admin.site.urls),
]

urlpatterns = api + pages
