import { Module } from '@nestjs/common';
import { ReceptionistController } from './receptionist.controller.js';
import { ReceptionistSettingsRepository } from './receptionist-settings.repository.js';
import { ReceptionistService } from './receptionist.service.js';

@Module({
  controllers: [ReceptionistController],
  providers: [ReceptionistService, ReceptionistSettingsRepository],
  exports: [ReceptionistService],
})
export class ReceptionistModule {}
