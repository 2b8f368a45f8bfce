from django.contrib import admin

from review.models import Release, Review

admin.site.register([Review, Release])
